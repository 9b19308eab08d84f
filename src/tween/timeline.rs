//! Timelines: tweens arranged in sequence and in parallel, with delays and staggers.
//!
//! A timeline is plain data. [`crate::tween::Animator::play`] flattens it into steps with
//! start offsets; each step, when its time comes, is an ordinary `tween_to` on its channel, so
//! it starts from whatever the channel shows at that moment.

use super::easing::Easing;

/// One tween inside a timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Step<K> {
    pub key: K,
    pub target: Vec<f32>,
    /// Seconds.
    pub duration: f32,
    pub easing: Easing,
}

impl<K> Step<K> {
    /// Time the step occupies in a sequence. A spring has no duration of its own, so its unit
    /// settle time stands in for it.
    pub fn nominal_duration(&self) -> f32 {
        match &self.easing {
            Easing::Spring(s) => s.settle_time() as f32,
            _ => self.duration.max(0.0),
        }
    }
}

/// A tree of tweens and delays.
#[derive(Clone, Debug, PartialEq)]
pub enum Timeline<K> {
    Tween(Step<K>),
    /// Seconds of nothing; useful inside a sequence.
    Delay(f32),
    /// Children one after another.
    Sequence(Vec<Timeline<K>>),
    /// Children all at once; lasts as long as the longest.
    Parallel(Vec<Timeline<K>>),
}

/// Which element of a stagger starts first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StaggerFrom {
    #[default]
    First,
    Last,
    /// Outward from the middle, as a ripple.
    Center,
}

/// Start offsets for `n` elements spaced `each` seconds apart.
pub fn stagger_offsets(n: usize, each: f32, from: StaggerFrom) -> Vec<f32> {
    let each = if each.is_finite() { each.max(0.0) } else { 0.0 };
    let centre = (n as f32 - 1.0) / 2.0;
    (0..n)
        .map(|i| match from {
            StaggerFrom::First => i as f32 * each,
            StaggerFrom::Last => (n - 1 - i) as f32 * each,
            StaggerFrom::Center => (i as f32 - centre).abs() * each,
        })
        .collect()
}

impl<K> Timeline<K> {
    pub fn tween(key: impl Into<K>, target: &[f32], duration: f32, easing: Easing) -> Self {
        Timeline::Tween(Step {
            key: key.into(),
            target: target.to_vec(),
            duration,
            easing,
        })
    }

    pub fn sequence(children: Vec<Timeline<K>>) -> Self {
        Timeline::Sequence(children)
    }

    pub fn parallel(children: Vec<Timeline<K>>) -> Self {
        Timeline::Parallel(children)
    }

    /// Runs `child` after `seconds`.
    pub fn delayed(seconds: f32, child: Timeline<K>) -> Self {
        Timeline::Sequence(vec![Timeline::Delay(seconds), child])
    }

    /// The same tween on many channels, each starting `each` seconds after the previous one
    /// (in the order `from` picks). Total length is `(n - 1)·each + duration`, so a stagger
    /// spreads work over frames without changing what each element does.
    pub fn stagger(steps: Vec<Step<K>>, each: f32, from: StaggerFrom) -> Self {
        let offsets = stagger_offsets(steps.len(), each, from);
        Timeline::Parallel(
            steps
                .into_iter()
                .zip(offsets)
                .map(|(step, offset)| Timeline::delayed(offset, Timeline::Tween(step)))
                .collect(),
        )
    }

    /// Total length in seconds.
    pub fn duration(&self) -> f32 {
        match self {
            Timeline::Tween(step) => step.nominal_duration(),
            Timeline::Delay(d) => d.max(0.0),
            Timeline::Sequence(children) => children.iter().map(Timeline::duration).sum(),
            Timeline::Parallel(children) => {
                children.iter().map(Timeline::duration).fold(0.0, f32::max)
            }
        }
    }

    /// Every step with its start offset, in start order (ties keep tree order).
    pub fn flatten(&self) -> Vec<(f32, &Step<K>)> {
        let mut out = Vec::new();
        self.collect(0.0, &mut out);
        out.sort_by(|a, b| a.0.total_cmp(&b.0));
        out
    }

    fn collect<'a>(&'a self, at: f32, out: &mut Vec<(f32, &'a Step<K>)>) {
        match self {
            Timeline::Tween(step) => out.push((at, step)),
            Timeline::Delay(_) => {}
            Timeline::Sequence(children) => {
                let mut t = at;
                for child in children {
                    child.collect(t, out);
                    t += child.duration();
                }
            }
            Timeline::Parallel(children) => {
                for child in children {
                    child.collect(at, out);
                }
            }
        }
    }
}
