//! Kiln's simulations against independent references written in Python and NumPy from each
//! model's paper or definition (`tests/reference/*.py`). CI does not run Python: the
//! fixtures those scripts wrote are committed in `tests/fixtures/` and read here. Each
//! simulation runs through the registry and a latch graph, from the same inputs.
//!
//! Discrete automata (Life, elementary) must match exactly; float fields (Gray–Scott,
//! fluid, cloth) within a stated tolerance that lies above the float32-versus-float64 gap
//! the script measured and far below the distance of every wrong model it tried (its
//! `sensitivity` figures, which each test checks); WFC outputs must obey the rules tabled
//! by the script, and small grids must give one of the solutions it enumerated.

mod common;

#[path = "python_references/cloth.rs"]
mod cloth;
#[path = "python_references/elementary.rs"]
mod elementary;
#[path = "python_references/fluid.rs"]
mod fluid;
#[path = "python_references/gray_scott.rs"]
mod gray_scott;
#[path = "python_references/life.rs"]
mod life;
#[path = "python_references/wfc.rs"]
mod wfc;
