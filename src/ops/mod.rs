//! Computing operations: the run engine and the arithmetic built on it.

pub(crate) mod arith;
pub(crate) mod axis;
pub(crate) mod closures;
mod compare;
mod cumulative;
pub(crate) mod engine;
mod fma;
mod integer;
mod into;
pub(crate) mod linalg;
mod logic;
pub(crate) mod manip;
mod math;
pub(crate) mod operand;
pub(crate) mod reduce;
pub(crate) mod select;
mod softmax;
pub(crate) mod sort;
pub(crate) mod split;
mod stats;

pub use operand::{IntoOperand, Operand};
