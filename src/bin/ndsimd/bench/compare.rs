//! `ndsimd bench --compare`: NumPy through the `python3` on PATH.

use super::runner::Row;

pub struct NumPy;

impl NumPy {
    pub fn start() -> Result<NumPy, String> {
        Err("not built yet".to_string())
    }

    pub fn compare(
        &mut self,
        _row: &Row,
        _ours: &mut dyn FnMut(),
        _samples: usize,
    ) -> Result<Option<(f64, f64)>, String> {
        Ok(None)
    }
}
