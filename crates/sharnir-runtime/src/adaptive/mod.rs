//! Adaptive integrators (need `std`: their stages live on the heap, sized at
//! run time): explicit Dormand–Prince 5(4) and DOP853 for non-stiff
//! mechanisms, and Radau IIA of order 5 for stiff ones.
