//! The release conditions of a model's detachable joints as terminal
//! events, so that a run stops where a joint lets go (located on the dense
//! output, not at the next step) and a new run continues in the variant
//! module from [`release_state`](crate::release_state).

use crate::detach::{release_functions, Detachable, Release};
use crate::events::{Direction, Event};

/// One terminal event per detachable joint of `model`, named
/// `release <joint>` (rising for a time or an `Above` threshold, falling
/// for a `Below` one), and the event function that watches them all: pass
/// both to [`Simulation::events`](crate::Simulation::events). The
/// reactions are evaluated with the model's own forces (`[forces]`,
/// stops, friction); a run with a controller adds its forces through
/// [`release_functions`] in an event function of its own.
#[allow(clippy::type_complexity)]
pub fn release_events<M, const NQ: usize, const NV: usize>(
    model: &M,
) -> (
    Vec<Event>,
    Box<dyn FnMut(f64, &[f64], &[f64], &mut [f64]) + Send>,
)
where
    M: Detachable<NQ, NV, Real = f64> + Clone + Send + 'static,
{
    let events = (0..M::N_DETACHABLE)
        .filter_map(|i| model.detachment(i))
        .map(|d| {
            let direction = match d.release {
                Release::At(_) | Release::Above(..) => Direction::Rising,
                Release::Below(..) => Direction::Falling,
            };
            Event::new(format!("release {}", d.joint), direction).terminal()
        })
        .collect();
    let model = model.clone();
    let function = move |t: f64, q: &[f64], v: &[f64], g: &mut [f64]| {
        if let (Ok(q), Ok(v)) = (<&[f64; NQ]>::try_from(q), <&[f64; NV]>::try_from(v)) {
            release_functions(&model, t, q, v, &[0.0; NV], g);
        }
    };
    (events, Box::new(function))
}
