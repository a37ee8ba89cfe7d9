//! Computing operations: the run engine and the arithmetic built on it.

pub(crate) mod arith;
pub(crate) mod axis;
mod compare;
pub(crate) mod engine;
mod fma;
mod linalg;
mod math;
pub(crate) mod operand;
pub(crate) mod reduce;
pub(crate) mod split;

pub use operand::{IntoOperand, Operand};
