//! Every module generated from `specs/`, compiled together as one `no_std` crate.
//! Do not edit: `cargo xtask gen --all` rewrites this file.
//! The modules are laid out by prettyplease and exempt from rustfmt, so that
//! `cargo fmt` never makes them differ from a fresh generation.

#![no_std]

#[rustfmt::skip]
pub mod chain10;
#[rustfmt::skip]
pub mod chain10_folded;
#[rustfmt::skip]
pub mod closed_chain;
#[rustfmt::skip]
pub mod crank_slider;
#[rustfmt::skip]
pub mod crank_slider_folded;
#[rustfmt::skip]
pub mod damped_pendulum;
#[rustfmt::skip]
pub mod damped_pendulum_folded;
#[rustfmt::skip]
pub mod delta;
#[rustfmt::skip]
pub mod delta_folded;
#[rustfmt::skip]
pub mod double_pendulum;
#[rustfmt::skip]
pub mod double_pendulum_folded;
#[rustfmt::skip]
pub mod driven_crank_slider;
#[rustfmt::skip]
pub mod driven_five_bar;
#[rustfmt::skip]
pub mod five_bar;
#[rustfmt::skip]
pub mod five_bar_folded;
#[rustfmt::skip]
pub mod floating_chain;
#[rustfmt::skip]
pub mod floating_four_bar;
#[rustfmt::skip]
pub mod four_bar;
#[rustfmt::skip]
pub mod four_bar_folded;
#[rustfmt::skip]
pub mod gear_backlash;
#[rustfmt::skip]
pub mod joint_zoo;
#[rustfmt::skip]
pub mod panda;
#[rustfmt::skip]
pub mod panda_folded;
#[rustfmt::skip]
pub mod panda_gripper;
#[rustfmt::skip]
pub mod parallelogram;
#[rustfmt::skip]
pub mod payload_release;
#[rustfmt::skip]
pub mod payload_release_without_grip;
#[rustfmt::skip]
pub mod pendulum_stop;
#[rustfmt::skip]
pub mod pin_clearance;
#[rustfmt::skip]
pub mod puma560;
#[rustfmt::skip]
pub mod puma560_fma;
#[rustfmt::skip]
pub mod puma560_folded;
#[rustfmt::skip]
pub mod puma560_symbolic;
#[rustfmt::skip]
pub mod puma560_symbolic_folded;
#[rustfmt::skip]
pub mod rssr;
#[rustfmt::skip]
pub mod rssr_folded;
#[rustfmt::skip]
pub mod shaken_pendulum;
#[rustfmt::skip]
pub mod ship_pendulum;
#[rustfmt::skip]
pub mod slider_stops;
#[rustfmt::skip]
pub mod sling_release;
#[rustfmt::skip]
pub mod sling_release_without_hinge;
#[rustfmt::skip]
pub mod solar_array;
#[rustfmt::skip]
pub mod solar_array_folded;
#[rustfmt::skip]
pub mod solar_array_without_hinge2;
#[rustfmt::skip]
pub mod solar_array_without_hinge2_folded;
#[rustfmt::skip]
pub mod solo12;
#[rustfmt::skip]
pub mod solo12_fixed;
#[rustfmt::skip]
pub mod solo12_fixed_folded;
#[rustfmt::skip]
pub mod spun_pendulum;
#[rustfmt::skip]
pub mod stewart;
#[rustfmt::skip]
pub mod telegin3_cartesian;
#[rustfmt::skip]
pub mod telegin3_cartesian_folded;
#[rustfmt::skip]
pub mod telegin3_cylindrical;
#[rustfmt::skip]
pub mod telegin3_cylindrical_folded;
#[rustfmt::skip]
pub mod telegin6;
#[rustfmt::skip]
pub mod telegin6_f32;
#[rustfmt::skip]
pub mod telegin6_fma;
#[rustfmt::skip]
pub mod telegin6_fma_f32;
#[rustfmt::skip]
pub mod telegin6_folded;
#[rustfmt::skip]
pub mod triple_pendulum;
#[rustfmt::skip]
pub mod triple_pendulum_folded;
#[rustfmt::skip]
pub mod two_stage_release;
#[rustfmt::skip]
pub mod two_stage_release_without_elbow;
#[rustfmt::skip]
pub mod two_stage_release_without_elbow_and_shoulder;
#[rustfmt::skip]
pub mod two_stage_release_without_shoulder;
#[rustfmt::skip]
pub mod ur5;
#[rustfmt::skip]
pub mod ur5_folded;
#[rustfmt::skip]
pub mod watt_six_bar;
#[rustfmt::skip]
pub mod watt_six_bar_folded;
