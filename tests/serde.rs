//! Arrays through serde_json (feature `serde`): every dtype round-trips with its
//! shape, views serialize their logical (row-major) order, and a document whose
//! data does not fill its shape is an error.
#![cfg(feature = "serde")]

use ndsimd::{s, Array, ArrayView, DType};
use serde::{de::DeserializeOwned, Serialize};

fn round_trip<T: DType + Serialize + DeserializeOwned>(a: &Array<T>) {
    let json = serde_json::to_string(a).unwrap();
    let b: Array<T> = serde_json::from_str(&json).unwrap();
    assert_eq!(b.shape(), a.shape(), "{json}");
    assert_eq!(b.to_vec(), a.to_vec(), "{json}");
}

#[test]
fn every_dtype_round_trips_with_its_shape() {
    round_trip(&Array::from_shape_vec(&[2, 3], vec![1.5f64, -0.0, 1e300, 2.0, 3.0, 4.0]).unwrap());
    round_trip(&Array::from_shape_vec(&[3, 1], vec![1.5f32, 0.25, -7.0]).unwrap());
    round_trip(&Array::from_shape_vec(&[1, 2, 2], vec![i64::MIN, -1, 0, i64::MAX]).unwrap());
    round_trip(&Array::from_vec(vec![i32::MIN, i32::MAX]));
    round_trip(&Array::from_vec(vec![0u8, 255]));
    round_trip(&Array::from_shape_vec(&[2, 1], vec![true, false]).unwrap());
    round_trip(&Array::<f64>::zeros(&[0, 4]));
    round_trip(&Array::from_elem(&[], 7i32));
    let j = serde_json::to_string(&Array::from_elem(&[], 7i32)).unwrap();
    assert_eq!(j, r#"{"shape":[],"data":[7]}"#);
}

#[test]
fn views_serialize_in_row_major_order() {
    let a = Array::from_shape_vec(&[2, 3], (0..6).collect::<Vec<i64>>()).unwrap();
    let v = a.slice(s![.., ..;-2]).unwrap();
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        r#"{"shape":[2,2],"data":[2,0,5,3]}"#
    );
    let data = [1.0, 2.0, 3.0, 4.0];
    let w = ArrayView::from_slice(&data, &[2, 2]).unwrap();
    let back: Array<f64> = serde_json::from_str(&serde_json::to_string(&w.t()).unwrap()).unwrap();
    assert_eq!(back.to_vec(), vec![1.0, 3.0, 2.0, 4.0]);
}

#[test]
fn mismatched_or_malformed_documents_are_errors() {
    let e = serde_json::from_str::<Array<f64>>(r#"{"shape":[2,3],"data":[1,2,3,4,5]}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("shape [2, 3] needs 6 elements but 5 were given"),
        "{e}"
    );
    let e = serde_json::from_str::<Array<u8>>(r#"{"shape":[1],"data":[1,2]}"#).unwrap_err();
    assert!(e.to_string().contains("needs 1 elements but 2"), "{e}");
    assert!(serde_json::from_str::<Array<u8>>(r#"{"shape":[1],"data":[256]}"#).is_err());
    assert!(serde_json::from_str::<Array<u8>>(r#"{"data":[1]}"#).is_err());
    assert!(serde_json::from_str::<Array<u8>>(r#"{"shape":[1],"data":[1],"x":0}"#).is_err());
    let deep = format!(r#"{{"shape":{:?},"data":[1]}}"#, vec![1; 65]);
    assert!(serde_json::from_str::<Array<u8>>(&deep).is_err());
}
