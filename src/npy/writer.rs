//! Writing: the bytes `numpy.save` writes for the same shape and dtype.

use super::*;

/// Writes `array` (an owned array or a view) to a `.npy` file (format version
/// 1.0, little-endian, C order).
///
/// Any layout is accepted; the logical C-order elements are written.
///
/// ```
/// use ndsimd::{npy, Array};
/// let path = std::env::temp_dir().join(format!("ndsimd-write-{}.npy", std::process::id()));
/// let a = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
/// npy::write(&path, &a).unwrap();          // an owned array
/// npy::write(&path, &a.t()).unwrap();      // or any view
/// assert_eq!(npy::read::<f64>(&path).unwrap().to_vec(), vec![1.0, 3.0, 2.0, 4.0]);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn write<T: NpyElement + DType>(
    path: impl AsRef<Path>,
    array: &ArrayBase<impl Data<Elem = T>>,
) -> io::Result<()> {
    let path = path.as_ref();
    std::fs::write(path, to_bytes(array))
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// Encodes `array` as the bytes of a `.npy` file (format version 1.0, little-endian,
/// C order, data aligned to 64 bytes), exactly as `numpy.save` would.
///
/// Any layout is accepted, owned or a view; the logical C-order elements are
/// written.
///
/// ```
/// let a = ndsimd::Array::<f32>::ones(&[3]);
/// assert_eq!(ndsimd::npy::to_bytes(&a), ndsimd::npy::to_bytes(&a.view()));
/// ```
pub fn to_bytes<T: NpyElement + DType>(array: &ArrayBase<impl Data<Elem = T>>) -> Vec<u8> {
    encode(array.shape(), array.len(), array.iter().copied())
}

/// Encodes `len` elements in C order for an array of `shape`.
pub(super) fn encode<T: NpyElement>(
    shape: &[usize],
    len: usize,
    elems: impl Iterator<Item = T>,
) -> Vec<u8> {
    let mut header = String::new();
    let _ = write!(
        header,
        "{{'descr': '{}', 'fortran_order': False, 'shape': (",
        T::DESCR_LE
    );
    for (i, d) in shape.iter().enumerate() {
        if i > 0 {
            header.push_str(", ");
        }
        let _ = write!(header, "{d}");
    }
    if shape.len() == 1 {
        header.push(',');
    }
    header.push_str("), }");
    if let Some(first) = shape.first() {
        // Room for the growth axis (axis 0 in C order) to grow in place, as NumPy leaves.
        let digits = first.to_string().len();
        header.extend(std::iter::repeat_n(
            ' ',
            GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits),
        ));
    }
    // Version 1.0 stores the header length in 2 bytes, version 2.0 in 4.
    let hlen = header.len() + 1; // + the final '\n'
    let padlen_v1 = ARRAY_ALIGN - (10 + hlen) % ARRAY_ALIGN;
    let (version, prefix_len) = if hlen + padlen_v1 <= usize::from(u16::MAX) {
        (1u8, 10)
    } else {
        (2u8, 12)
    };
    let padlen = ARRAY_ALIGN - (prefix_len + hlen) % ARRAY_ALIGN;
    let total_hlen = hlen + padlen;
    let mut out = Vec::with_capacity(prefix_len + total_hlen + len * T::ITEMSIZE);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        // Cannot truncate: checked above.
        out.extend_from_slice(&(total_hlen as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(total_hlen as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    out.extend(std::iter::repeat_n(b' ', padlen));
    out.push(b'\n');
    debug_assert_eq!(out.len() % ARRAY_ALIGN, 0);
    for x in elems {
        x.encode_le(&mut out);
    }
    out
}
