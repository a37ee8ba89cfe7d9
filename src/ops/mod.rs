//! Computing operations: the run engine and the arithmetic built on it.

pub(crate) mod arith;
pub(crate) mod engine;

pub use arith::{IntoOperand, Operand};
