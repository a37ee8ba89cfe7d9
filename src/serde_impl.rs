//! `Serialize` for every array and view and `Deserialize` for owned arrays
//! (feature `serde`): a struct of the shape and the elements in row-major order,
//! whatever the layout, so any view serializes as its standard-layout copy would.

use crate::array::{Array, ArrayBase, Data};
use crate::DType;
use serde::de::{Deserialize, Deserializer, Error as _};
use serde::ser::{Serialize, SerializeSeq, SerializeStruct, Serializer};

/// The elements of an array in row-major order, as a sequence.
struct Elements<'a, S: Data>(&'a ArrayBase<S>);

impl<S: Data> Serialize for Elements<'_, S>
where
    S::Elem: DType + Serialize,
{
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for x in self.0.iter() {
            seq.serialize_element(x)?;
        }
        seq.end()
    }
}

/// `{"shape": [..], "data": [..]}`, the data in row-major (C) order.
///
/// ```
/// use ndsimd::Array;
/// let a = Array::from_shape_vec(&[2, 2], vec![1i32, 2, 3, 4])?;
/// let json = serde_json::to_string(&a.t()).unwrap();
/// assert_eq!(json, r#"{"shape":[2,2],"data":[1,3,2,4]}"#);
/// # Ok::<(), ndsimd::Error>(())
/// ```
impl<S: Data> Serialize for ArrayBase<S>
where
    S::Elem: DType + Serialize,
{
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        let mut st = s.serialize_struct("Array", 2)?;
        st.serialize_field("shape", self.shape())?;
        st.serialize_field("data", &Elements(self))?;
        st.end()
    }
}

/// What an array deserializes from, before its shape is checked.
#[derive(serde::Deserialize)]
#[serde(rename = "Array", deny_unknown_fields)]
struct Raw<T> {
    shape: Vec<usize>,
    data: Vec<T>,
}

/// From `{"shape": [..], "data": [..]}` (row-major data); a data length that is not
/// the shape's product, or more axes than an array may have, is an error naming
/// both.
///
/// ```
/// use ndsimd::Array;
/// let a: Array<f64> = serde_json::from_str(r#"{"shape":[2,1],"data":[0.5,-1.0]}"#).unwrap();
/// assert_eq!((a.shape(), a.to_vec()), (&[2, 1][..], vec![0.5, -1.0]));
/// let e = serde_json::from_str::<Array<f64>>(r#"{"shape":[2,2],"data":[0.5]}"#).unwrap_err();
/// assert!(e.to_string().contains("[2, 2]"), "{e}");
/// ```
impl<'de, T: DType + Deserialize<'de>> Deserialize<'de> for Array<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Raw::<T>::deserialize(d)?;
        Array::from_shape_vec(&raw.shape, raw.data).map_err(D::Error::custom)
    }
}
