//! Random inputs in batches paced to a deadline: the one seeded draw every mode's random phase uses.

use crate::executable::Pacer;
use crate::search::{mutated_input, structured_input, InputSpace};
use fpscout_walk::concrete::ArgBits;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// Random inputs drawn from `seed` over one or more input spaces (one per assignment of a
/// function's integer parameters: each input from one of them, chosen at random), handed
/// out in batches that a [`Pacer`] sizes from the time the caller spent on the batch
/// before (running, tracing, comparing), so that the last batch ends near the deadline.
pub struct RandomBatches<'a> {
    spaces: &'a [InputSpace],
    rng: ChaCha8Rng,
    pacer: Pacer,
    left: usize,
    integers_too: bool,
    structured_around: Option<Vec<f64>>,
    /// The last batch's inputs as (space, float bits), for [`RandomBatches::adopt`].
    last: Vec<(usize, Vec<u64>)>,
    /// Inputs whose behaviour was new, mutated for some of the draws.
    parents: Vec<(usize, Vec<u64>)>,
    handed_out: Option<(Instant, usize)>,
}

impl<'a> RandomBatches<'a> {
    /// At most `inputs` inputs (`usize::MAX`: until the pacer's deadline).
    pub fn new(spaces: &'a [InputSpace], seed: u64, inputs: usize, pacer: Pacer) -> Self {
        RandomBatches {
            spaces,
            rng: ChaCha8Rng::seed_from_u64(seed),
            pacer,
            left: inputs,
            integers_too: false,
            structured_around: None,
            last: Vec::new(),
            parents: Vec::new(),
            handed_out: None,
        }
    }

    /// Draws the elements of integer arrays (an SV-COMP harness's integer nondets) too,
    /// which the float search leaves at zero.
    pub fn integers_too(mut self) -> Self {
        self.integers_too = true;
        self
    }

    /// Draws half the coordinates from values where numerical code changes behaviour
    /// (integers, the function's `constants` on other scales and a few ulps away, powers
    /// of ten: [`crate::search::structured_input`]) instead of random floats.
    pub fn structured(mut self, constants: Vec<f64>) -> Self {
        self.structured_around = Some(constants);
        self
    }

    /// The next batch; `None` once every input was handed out or the deadline passed.
    /// The time since the previous batch was handed out paces this one.
    pub fn next_batch(&mut self) -> Option<Vec<Vec<ArgBits>>> {
        if let Some((started, inputs)) = self.handed_out.take() {
            self.pacer.ran(started, inputs);
        }
        if self.left == 0 || self.spaces.is_empty() || self.pacer.expired() {
            return None;
        }
        let started = Instant::now();
        let n = self.pacer.batch().min(self.left);
        self.left -= n;
        self.last.clear();
        let batch = (0..n).map(|_| self.draw()).collect();
        self.handed_out = Some((started, n));
        Some(batch)
    }

    /// Makes input `index` of the last batch a parent: a quarter of the structured draws
    /// after it mutate one of the parents (see [`crate::search::mutated_input`]).
    pub fn adopt(&mut self, index: usize) {
        let Some(input) = self.last.get(index).cloned() else {
            return;
        };
        if self.parents.len() < MAX_PARENTS {
            self.parents.push(input);
        } else {
            let slot = self.rng.gen_range(0..MAX_PARENTS);
            self.parents[slot] = input;
        }
    }

    fn draw(&mut self) -> Vec<ArgBits> {
        let index = match self.spaces.len() {
            1 => 0,
            many => self.rng.gen_range(0..many),
        };
        let space = &self.spaces[index];
        if self.integers_too {
            return space.random_with_integers(&mut self.rng);
        }
        let Some(constants) = &self.structured_around else {
            return space.random(&mut self.rng);
        };
        let (index, floats) = if !self.parents.is_empty() && self.rng.gen_bool(MUTATED_SHARE) {
            let (index, parent) = &self.parents[self.rng.gen_range(0..self.parents.len())];
            let space = &self.spaces[*index];
            (
                *index,
                mutated_input(
                    &mut self.rng,
                    &space.inputs,
                    &space.ranges,
                    constants,
                    parent,
                ),
            )
        } else {
            (
                index,
                structured_input(&mut self.rng, &space.inputs, &space.ranges, constants),
            )
        };
        self.last.push((index, floats.clone()));
        self.spaces[index].assemble(&floats)
    }
}

/// Parents kept at most (a full list replaces one at random).
const MAX_PARENTS: usize = 256;
/// The share of structured draws that mutate a parent.
const MUTATED_SHARE: f64 = 0.25;

#[cfg(test)]
mod tests {
    use super::*;
    use fpscout_ir::FloatTy;
    use fpscout_smt::ParamSpec;
    use std::time::Duration;

    /// One double `x` in [lo, hi], and an integer fixed at `int`.
    fn space(lo: f64, hi: f64, int: u64) -> InputSpace {
        InputSpace {
            specs: vec![
                ParamSpec::Float {
                    name: "x".into(),
                    ty: FloatTy::F64,
                    range: Some((lo, hi)),
                },
                ParamSpec::Int { bits: int },
            ],
            inputs: vec![("x".into(), FloatTy::F64)],
            ranges: vec![Some((lo, hi))],
            tys: vec![FloatTy::F64],
            lens: vec![None, None],
        }
    }

    fn all(mut batches: RandomBatches) -> Vec<Vec<ArgBits>> {
        let mut out = Vec::new();
        while let Some(b) = batches.next_batch() {
            out.extend(b);
        }
        out
    }

    /// Two unbounded doubles `x`, `y`.
    fn pair_space() -> InputSpace {
        let float = |name: &str| ParamSpec::Float {
            name: name.into(),
            ty: FloatTy::F64,
            range: None,
        };
        InputSpace {
            specs: vec![float("x"), float("y")],
            inputs: vec![("x".into(), FloatTy::F64), ("y".into(), FloatTy::F64)],
            ranges: vec![None, None],
            tys: vec![FloatTy::F64, FloatTy::F64],
            lens: vec![None, None],
        }
    }

    #[test]
    fn an_adopted_input_is_mutated_in_later_draws_and_the_plain_draw_never_mutates() {
        let spaces = [pair_space()];
        let coordinates = |input: &[ArgBits]| -> (u64, u64) {
            match input {
                [ArgBits::Scalar(x), ArgBits::Scalar(y)] => (*x, *y),
                other => panic!("two scalars: {other:?}"),
            }
        };
        for structured in [true, false] {
            let mut draws = RandomBatches::new(&spaces, 5, 20_000, Pacer::new(None));
            if structured {
                draws = draws.structured(vec![3.5]);
            }
            let first = draws.next_batch().expect("a first batch");
            let parent = coordinates(&first[0]);
            draws.adopt(0);
            let mut later = 0;
            let mut sharing = 0;
            while let Some(batch) = draws.next_batch() {
                for input in batch {
                    let (x, y) = coordinates(&input);
                    assert!(f64::from_bits(x).is_finite() && f64::from_bits(y).is_finite());
                    later += 1;
                    // A mutation changes one coordinate, or both with probability 1/2.
                    if (x == parent.0) != (y == parent.1) {
                        sharing += 1;
                    }
                }
            }
            if structured {
                // A quarter of the draws mutate the one parent, most keeping a coordinate.
                assert!(sharing * 10 > later, "{sharing} of {later}");
            } else {
                assert_eq!(sharing, 0, "plain random draws mutate nothing");
            }
        }
    }

    #[test]
    fn hands_out_exactly_the_inputs_asked_for_inside_the_ranges_and_the_same_for_one_seed() {
        let spaces = [space(1.0, 2.0, 7)];
        let first = all(RandomBatches::new(&spaces, 42, 10_000, Pacer::new(None)));
        assert_eq!(first.len(), 10_000);
        for input in &first {
            let ArgBits::Scalar(x) = input[0] else {
                panic!("a scalar input: {input:?}")
            };
            assert!(
                (1.0..=2.0).contains(&f64::from_bits(x)),
                "{}",
                f64::from_bits(x)
            );
            assert_eq!(input[1], ArgBits::Scalar(7));
        }
        // Batch sizes depend on the time each took; the inputs only on the seed.
        let paced = RandomBatches::new(
            &spaces,
            42,
            10_000,
            Pacer::new(Some(Instant::now() + Duration::from_secs(60))),
        );
        assert_eq!(all(paced), first);
        assert_ne!(
            all(RandomBatches::new(&spaces, 43, 10_000, Pacer::new(None))),
            first
        );
    }

    #[test]
    fn draws_from_every_space_and_stops_at_the_deadline() {
        let spaces = [space(1.0, 2.0, 1), space(1.0, 2.0, 2), space(1.0, 2.0, 3)];
        let inputs = all(RandomBatches::new(&spaces, 1, 3_000, Pacer::new(None)));
        for k in 1..=3 {
            let n = inputs.iter().filter(|i| i[1] == ArgBits::Scalar(k)).count();
            assert!((800..1200).contains(&n), "space {k}: {n} of 3000");
        }
        let past = Pacer::new(Some(Instant::now() - Duration::from_millis(1)));
        assert!(RandomBatches::new(&spaces, 1, usize::MAX, past)
            .next_batch()
            .is_none());
    }
}
