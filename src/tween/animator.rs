//! The scheduler: one clock, one track per channel, timelines and a job budget.
//!
//! Rules it keeps (from the design this module follows):
//! - **Single writer.** Game code never writes a channel's displayed value; it sets *targets*
//!   (`tween_to`, `play`) and reads *current* values after [`Animator::tick`].
//! - **Target vs current.** `target` is what the game asked for (save it, show it in settings);
//!   `current` is what is on screen. A new tween starts from `current`.
//! - **Replace, do not queue.** A new tween on a busy channel retargets it, keeping its speed;
//!   queues exist only inside explicit timelines.
//! - **Exact ends.** A finished track writes its target exactly, so no error accumulates.

use std::borrow::Borrow;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::hash::Hash;

use super::budget::{BudgetReport, Clock, Job, JobQueue, SystemClock};
use super::color::ColorSpace;
use super::easing::Easing;
pub use super::events::{AnimError, AnimEvent, TimelineId};
pub use super::options::{AnimatorOptions, ChannelSpec, SliderFollow, Transition};
use super::spring::Spring;
use super::timeline::{StaggerFrom, Step, Timeline};
use super::track::{distance, EasedTrack, SpringTrack, Track};

/// Slack for comparing times: offsets and durations arrive as f32, the clock is f64, and a
/// step scheduled at 0.5 s must not wait a frame because 0.5f32 summed differently.
const TIME_EPS: f64 = 1e-6;

#[derive(Debug)]
struct Channel<K> {
    key: K,
    current: Vec<f32>,
    target: Vec<f32>,
    color: Option<ColorSpace>,
    slider_collapse: bool,
    transition: Option<Transition>,
    /// Times of recent writes, newest last, for slider detection.
    writes: VecDeque<f64>,
    track: Option<Track>,
}

#[derive(Debug)]
struct Pending {
    at: f64,
    order: u64,
    timeline: TimelineId,
    channel: usize,
    target: Vec<f32>,
    duration: f32,
    easing: Easing,
}

/// Where a new track starts from, besides "the channel's current value".
enum StartFrom<'a> {
    Current,
    Value(&'a [f32]),
}

/// The tween scheduler. `K` is the channel key: a `String` by default, or any typed key.
pub struct Animator<K = String> {
    options: AnimatorOptions,
    now: f64,
    channels: Vec<Channel<K>>,
    index: HashMap<K, usize>,
    pending: Vec<Pending>,
    timelines: Vec<(TimelineId, f64)>,
    next_order: u64,
    events: Vec<AnimEvent<K>>,
    changed: Vec<usize>,
    jobs: JobQueue,
    last_budget: BudgetReport,
}

impl<K: fmt::Debug> fmt::Debug for Animator<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Animator")
            .field("now", &self.now)
            .field("channels", &self.channels.len())
            .field("pending", &self.pending.len())
            .field("jobs", &self.jobs)
            .finish()
    }
}

impl<K: Eq + Hash + Clone + fmt::Debug> Default for Animator<K> {
    fn default() -> Self {
        Self::new(AnimatorOptions::default())
    }
}

impl<K: Eq + Hash + Clone + fmt::Debug> Animator<K> {
    pub fn new(options: AnimatorOptions) -> Self {
        Self::with_clock(options, Box::new(SystemClock::default()))
    }

    /// Uses `clock` for job budgets (tests pass a [`super::ManualClock`]).
    pub fn with_clock(options: AnimatorOptions, clock: Box<dyn Clock>) -> Self {
        let jobs = JobQueue::new(options.budget, clock);
        Animator {
            options,
            now: 0.0,
            channels: Vec::new(),
            index: HashMap::new(),
            pending: Vec::new(),
            timelines: Vec::new(),
            next_order: 0,
            events: Vec::new(),
            changed: Vec::new(),
            jobs,
            last_budget: BudgetReport::default(),
        }
    }

    pub fn options(&self) -> &AnimatorOptions {
        &self.options
    }

    pub fn set_options(&mut self, options: AnimatorOptions) {
        self.jobs.set_budget(options.budget);
        self.options = options;
    }

    /// Animation time in seconds: the sum of clamped tick steps.
    pub fn now(&self) -> f64 {
        self.now
    }

    // ----- channels -------------------------------------------------------------------------

    /// Registers a plain channel with its initial value (its length is fixed from now on).
    pub fn register(&mut self, key: impl Into<K>, initial: &[f32]) -> Result<(), AnimError> {
        self.register_with(key, ChannelSpec::new(initial))
    }

    /// Registers a linear-RGB(A) colour channel mixed in `space`.
    pub fn register_color(
        &mut self,
        key: impl Into<K>,
        initial_linear: &[f32],
        space: ColorSpace,
    ) -> Result<(), AnimError> {
        self.register_with(key, ChannelSpec::color(initial_linear, space))
    }

    pub fn register_with(&mut self, key: impl Into<K>, spec: ChannelSpec) -> Result<(), AnimError> {
        let key = key.into();
        if self.index.contains_key(&key) {
            return Err(AnimError::DuplicateChannel(format!("{key:?}")));
        }
        if spec.initial.iter().any(|v| !v.is_finite()) {
            return Err(AnimError::NotFinite(format!("{key:?}")));
        }
        self.index.insert(key.clone(), self.channels.len());
        self.channels.push(Channel {
            key,
            current: spec.initial.clone(),
            target: spec.initial,
            color: spec.color,
            slider_collapse: spec.slider_collapse,
            transition: spec.transition,
            writes: VecDeque::new(),
            track: None,
        });
        Ok(())
    }

    /// Removes a channel, its track and its pending timeline steps. Returns whether it existed.
    pub fn unregister<Q>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let Some(i) = self.index.remove(key) else {
            return false;
        };
        let last = self.channels.len() - 1;
        self.channels.swap_remove(i);
        if i != last {
            let moved = self.channels[i].key.clone();
            self.index.insert(moved, i);
        }
        self.pending.retain(|p| p.channel != i);
        for p in &mut self.pending {
            if p.channel == last {
                p.channel = i;
            }
        }
        self.changed.clear();
        true
    }

    pub fn contains<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.index.contains_key(key)
    }

    fn channel<Q>(&self, key: &Q) -> Option<&Channel<K>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.index.get(key).map(|&i| &self.channels[i])
    }

    /// The value on screen (written only by `tick`, `cancel` and `finish`).
    pub fn value<Q>(&self, key: &Q) -> Option<&[f32]>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.channel(key).map(|c| c.current.as_slice())
    }

    /// First component of [`Animator::value`], for scalar channels.
    pub fn scalar<Q>(&self, key: &Q) -> Option<f32>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.value(key).and_then(|v| v.first().copied())
    }

    /// What the channel is heading to (or resting at).
    pub fn target<Q>(&self, key: &Q) -> Option<&[f32]>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.channel(key).map(|c| c.target.as_slice())
    }

    /// Current velocity in units per second (zero when idle).
    pub fn velocity<Q>(&self, key: &Q) -> Option<Vec<f32>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.channel(key).map(|c| match &c.track {
            Some(t) => t.velocity(self.now).into_iter().map(|v| v as f32).collect(),
            None => vec![0.0; c.current.len()],
        })
    }

    /// Seconds the running eased track will still take (`None` when idle or a spring).
    pub fn remaining<Q>(&self, key: &Q) -> Option<f32>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        match &self.channel(key)?.track {
            Some(Track::Eased(t)) => Some((t.start + t.duration - self.now).max(0.0) as f32),
            _ => None,
        }
    }

    pub fn is_animating<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.channel(key).is_some_and(|c| c.track.is_some())
    }

    /// Channels whose value the last `tick` (or `cancel`/`finish` since) wrote.
    pub fn changed(&self) -> impl Iterator<Item = (&K, &[f32])> {
        self.changed.iter().map(|&i| {
            let c = &self.channels[i];
            (&c.key, c.current.as_slice())
        })
    }

    pub fn drain_events(&mut self) -> Vec<AnimEvent<K>> {
        std::mem::take(&mut self.events)
    }

    // ----- writing targets ------------------------------------------------------------------

    fn lookup<Q>(&self, key: &Q, value: &[f32]) -> Result<usize, AnimError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized + fmt::Debug,
    {
        let i = *self
            .index
            .get(key)
            .ok_or_else(|| AnimError::UnknownChannel(format!("{key:?}")))?;
        let expected = self.channels[i].current.len();
        if value.len() != expected {
            return Err(AnimError::WrongLength {
                key: format!("{key:?}"),
                expected,
                found: value.len(),
            });
        }
        if value.iter().any(|v| !v.is_finite()) {
            return Err(AnimError::NotFinite(format!("{key:?}")));
        }
        Ok(i)
    }

    /// Animates a channel from its current value to `target`.
    ///
    /// - On a busy channel this is a retarget: the motion keeps its velocity and the duration
    ///   is scaled by remaining / original distance, clamped to
    ///   `[min_retarget_fraction·duration, duration]`.
    /// - With [`Easing::Spring`] the track is a physical spring on real time: `duration` is
    ///   ignored, the spring settles by its convergence rule and a retarget keeps position
    ///   and velocity.
    /// - Asking again for the target the channel already heads to changes nothing, so callers
    ///   may simply call this every frame.
    /// - `slider_writes` writes within `slider_window` switch to direct following.
    pub fn tween_to<Q>(
        &mut self,
        key: &Q,
        target: &[f32],
        duration: f32,
        easing: Easing,
    ) -> Result<(), AnimError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized + fmt::Debug,
    {
        let i = self.lookup(key, target)?;
        let ch = &self.channels[i];
        let same = if ch.track.is_some() {
            ch.target == target
        } else {
            ch.current == target
        };
        if same {
            return Ok(());
        }
        let collapsed = self.record_write(i);
        let now = self.now;
        self.start_track(
            i,
            target,
            duration,
            easing,
            now,
            StartFrom::Current,
            collapsed,
        );
        Ok(())
    }

    /// [`Animator::tween_to`] with the channel's transition, or the global default.
    pub fn tween<Q>(&mut self, key: &Q, target: &[f32]) -> Result<(), AnimError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized + fmt::Debug,
    {
        let Transition { duration, easing } = self
            .channel(key)
            .and_then(|c| c.transition.clone())
            .unwrap_or_else(|| self.options.default_transition.clone());
        self.tween_to(key, target, duration, easing)
    }

    /// Like [`Animator::tween_to`] but starting from `from` (the channel jumps there first).
    /// A "path progress" channel uses this to run 0 → 1 again on every loop.
    pub fn tween_from_to<Q>(
        &mut self,
        key: &Q,
        from: &[f32],
        target: &[f32],
        duration: f32,
        easing: Easing,
    ) -> Result<(), AnimError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized + fmt::Debug,
    {
        let i = self.lookup(key, target)?;
        self.lookup(key, from)?;
        let now = self.now;
        self.start_track(
            i,
            target,
            duration,
            easing,
            now,
            StartFrom::Value(from),
            false,
        );
        Ok(())
    }

    /// Jumps to `value` on the next tick (a zero-length tween, so `tick` stays the only writer).
    pub fn set<Q>(&mut self, key: &Q, value: &[f32]) -> Result<(), AnimError>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized + fmt::Debug,
    {
        let i = self.lookup(key, value)?;
        let now = self.now;
        self.start_track(
            i,
            value,
            0.0,
            Easing::Linear,
            now,
            StartFrom::Current,
            false,
        );
        Ok(())
    }

    /// Records a write and says whether the channel is being dragged like a slider.
    fn record_write(&mut self, i: usize) -> bool {
        let window = self.options.slider_window as f64;
        let needed = self.options.slider_writes.max(1);
        let now = self.now;
        let ch = &mut self.channels[i];
        ch.writes.push_back(now);
        while ch
            .writes
            .front()
            .is_some_and(|&t| now - t > window + TIME_EPS)
        {
            ch.writes.pop_front();
        }
        while ch.writes.len() > needed {
            ch.writes.pop_front();
        }
        ch.slider_collapse && ch.writes.len() >= needed
    }

    #[allow(clippy::too_many_arguments)]
    fn start_track(
        &mut self,
        i: usize,
        target: &[f32],
        duration: f32,
        easing: Easing,
        at: f64,
        from: StartFrom<'_>,
        collapsed: bool,
    ) {
        let options = &self.options;
        let ch = &mut self.channels[i];
        let to: Vec<f64> = target.iter().map(|&v| v as f64).collect();
        // A track that already ended by `at` is not interrupted; it is just finished.
        let live = ch.track.as_ref().filter(|t| {
            let mut probe = (*t).clone();
            !probe.advance(at)
        });
        if ch.track.is_some() && live.is_none() {
            // It ended between frames; report it like any other finish.
            self.events.push(AnimEvent::Finished(ch.key.clone()));
        }
        let (pos, vel, old_span) = match (&from, live) {
            (StartFrom::Value(v), _) => (
                v.iter().map(|&x| x as f64).collect(),
                vec![0.0; to.len()],
                None,
            ),
            (StartFrom::Current, Some(t)) => (t.position(at), t.velocity(at), Some(t.span())),
            (StartFrom::Current, None) => match &ch.track {
                Some(t) => (t.target().to_vec(), vec![0.0; to.len()], None),
                None => (
                    ch.current.iter().map(|&x| x as f64).collect(),
                    vec![0.0; to.len()],
                    None,
                ),
            },
        };
        ch.target = target.to_vec();
        let duration = if duration.is_finite() {
            duration.max(0.0) as f64
        } else {
            0.0
        };
        let spring = match (&easing, collapsed, options.slider_follow) {
            (_, true, SliderFollow::Critical { stiffness }) => Spring::critical(stiffness).ok(),
            (Easing::Spring(s), false, _) => Some(*s),
            _ => None,
        };
        let track = if let Some(spring) = spring {
            Track::Spring(SpringTrack {
                spring,
                span: distance(&pos, &to),
                to,
                x: pos,
                v: vel,
                time: at,
                eps: options.spring_eps as f64,
            })
        } else if collapsed {
            Track::Eased(EasedTrack {
                correction: vec![0.0; to.len()],
                from: pos,
                to,
                start: at,
                duration: 0.0,
                easing,
                color: ch.color,
            })
        } else {
            let scaled = match old_span {
                Some(total) if total > 1e-12 => {
                    let remain = distance(&pos, &to);
                    let min = options.min_retarget_fraction.clamp(0.0, 1.0) as f64 * duration;
                    (duration * remain / total).clamp(min, duration)
                }
                _ => duration,
            };
            let mut track = EasedTrack {
                correction: vec![0.0; to.len()],
                from: pos,
                to,
                start: at,
                duration: scaled,
                easing,
                color: ch.color,
            };
            if old_span.is_some() && scaled > 0.0 {
                let natural = track.start_velocity();
                track.correction = vel.iter().zip(&natural).map(|(v, n)| v - n).collect();
            }
            Track::Eased(track)
        };
        ch.track = Some(track);
    }

    /// Stops the channel where it is; its target becomes its current value.
    pub fn cancel<Q>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let Some(&i) = self.index.get(key) else {
            return false;
        };
        let ch = &mut self.channels[i];
        if ch.track.take().is_none() {
            return false;
        }
        ch.target = ch.current.clone();
        self.events.push(AnimEvent::Cancelled(ch.key.clone()));
        true
    }

    /// Jumps the channel to its target now.
    pub fn finish<Q>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let Some(&i) = self.index.get(key) else {
            return false;
        };
        let ch = &mut self.channels[i];
        if ch.track.take().is_none() {
            return false;
        }
        ch.current = ch.target.clone();
        self.events.push(AnimEvent::Finished(ch.key.clone()));
        if !self.changed.contains(&i) {
            self.changed.push(i);
        }
        true
    }

    // ----- timelines ------------------------------------------------------------------------

    /// Schedules a timeline; every key is checked before anything is scheduled.
    pub fn play(&mut self, timeline: &Timeline<K>) -> Result<TimelineId, AnimError> {
        let steps = timeline.flatten();
        let mut resolved = Vec::with_capacity(steps.len());
        for (offset, step) in &steps {
            let i = self.lookup(&step.key, &step.target)?;
            resolved.push((*offset, i, *step));
        }
        let id = TimelineId::new(self.next_order);
        self.next_order += 1;
        for (offset, channel, step) in resolved {
            let order = self.next_order;
            self.next_order += 1;
            self.pending.push(Pending {
                at: self.now + offset as f64,
                order,
                timeline: id,
                channel,
                target: step.target.clone(),
                duration: step.duration,
                easing: step.easing.clone(),
            });
        }
        self.pending
            .sort_by(|a, b| a.at.total_cmp(&b.at).then(a.order.cmp(&b.order)));
        self.timelines
            .push((id, self.now + timeline.duration() as f64));
        Ok(id)
    }

    /// Tweens many channels to the same target, `each` seconds apart.
    pub fn stagger_to(
        &mut self,
        keys: &[K],
        target: &[f32],
        duration: f32,
        easing: Easing,
        each: f32,
        from: StaggerFrom,
    ) -> Result<TimelineId, AnimError> {
        let steps = keys
            .iter()
            .map(|k| Step {
                key: k.clone(),
                target: target.to_vec(),
                duration,
                easing: easing.clone(),
            })
            .collect();
        self.play(&Timeline::stagger(steps, each, from))
    }

    /// Drops the timeline's steps that have not started; running tracks continue.
    pub fn cancel_timeline(&mut self, id: TimelineId) {
        self.pending.retain(|p| p.timeline != id);
        self.timelines.retain(|(t, _)| *t != id);
    }

    // ----- jobs -----------------------------------------------------------------------------

    /// Queues heavy work to run within the per-tick budget.
    pub fn push_job(&mut self, job: impl Job + 'static) {
        self.jobs.push(job);
    }

    pub fn jobs(&self) -> &JobQueue {
        &self.jobs
    }

    /// What the last tick's job run did.
    pub fn last_budget(&self) -> BudgetReport {
        self.last_budget
    }

    // ----- the clock ------------------------------------------------------------------------

    /// Advances time by `dt` seconds (clamped to `[0, max_dt]`), starts due timeline steps,
    /// writes every animated channel, then runs jobs within the budget. Returns whether anything
    /// is still in progress, i.e. whether the next frame will change something.
    pub fn tick(&mut self, dt: f32) -> bool {
        let dt = if dt.is_finite() {
            dt.clamp(0.0, self.options.max_dt.max(0.0))
        } else {
            0.0
        };
        self.now += dt as f64;
        let now = self.now;
        self.changed.clear();

        let due = self.pending.partition_point(|p| p.at <= now + TIME_EPS);
        let starting: Vec<Pending> = self.pending.drain(..due).collect();
        for p in starting {
            self.start_track(
                p.channel,
                &p.target,
                p.duration,
                p.easing,
                p.at,
                StartFrom::Current,
                false,
            );
        }

        for (i, ch) in self.channels.iter_mut().enumerate() {
            let Some(track) = ch.track.as_mut() else {
                continue;
            };
            let done = track.advance(now);
            if done {
                ch.current.clone_from(&ch.target);
                ch.track = None;
                self.events.push(AnimEvent::Finished(ch.key.clone()));
            } else {
                track.write_position(now, &mut ch.current);
            }
            self.changed.push(i);
        }

        let pending = &self.pending;
        let events = &mut self.events;
        self.timelines.retain(|(id, end)| {
            let over = *end <= now + TIME_EPS && !pending.iter().any(|p| p.timeline == *id);
            if over {
                events.push(AnimEvent::TimelineFinished(*id));
            }
            !over
        });

        self.last_budget = self.jobs.run();
        self.is_busy()
    }

    /// Whether any track, timeline or job is still in progress.
    pub fn is_busy(&self) -> bool {
        !self.pending.is_empty()
            || !self.timelines.is_empty()
            || !self.jobs.is_empty()
            || self.channels.iter().any(|c| c.track.is_some())
    }
}
