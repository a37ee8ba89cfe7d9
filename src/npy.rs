//! `.npy` reading and writing (in progress).
