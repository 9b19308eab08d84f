//! Heavy work split into small units and run within a per-frame time budget.
//!
//! Interpolating a value is cheap; what causes hitches is the work a change drags along
//! (rebuilding a mesh, re-baking a texture for a thousand agents). Such work is queued as a
//! [`Job`] that does one unit per call. Each frame runs units until the budget is spent and
//! carries the rest to the next frame. The clock is injectable so tests are deterministic.

use crate::clock::Instant;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Source of "now" for budget checks, in seconds from an arbitrary origin.
pub trait Clock: Send {
    fn now(&self) -> f64;
}

/// Wall-clock time from [`Instant`].
#[derive(Debug)]
pub struct SystemClock {
    origin: Instant,
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock {
            origin: Instant::now(),
        }
    }
}

impl Clock for SystemClock {
    fn now(&self) -> f64 {
        self.origin.elapsed().as_secs_f64()
    }
}

/// A clock that moves only when told to; clones share the same time. Tests hand one clone to
/// the queue and advance another from inside jobs to model each unit's cost.
#[derive(Clone, Debug, Default)]
pub struct ManualClock {
    bits: Arc<AtomicU64>,
}

impl ManualClock {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn advance(&self, seconds: f64) {
        let now = self.now() + seconds;
        self.bits.store(now.to_bits(), Ordering::Relaxed);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> f64 {
        f64::from_bits(self.bits.load(Ordering::Relaxed))
    }
}

/// Whether a job has more units to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobStatus {
    More,
    Done,
}

/// Work that can stop between units. One unit must be short (one mesh, one chunk of agents).
pub trait Job: Send {
    fn run_unit(&mut self) -> JobStatus;
}

impl<F: FnMut() -> JobStatus + Send> Job for F {
    fn run_unit(&mut self) -> JobStatus {
        self()
    }
}

/// What one frame of job running did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BudgetReport {
    pub units_run: usize,
    pub jobs_finished: usize,
    /// Jobs still queued for later frames.
    pub jobs_left: usize,
    /// True when this frame stopped because the budget ran out.
    pub over_budget: bool,
}

/// A FIFO of jobs run under a time budget.
pub struct JobQueue {
    jobs: VecDeque<Box<dyn Job>>,
    budget: Duration,
    clock: Box<dyn Clock>,
    over_budget_streak: u32,
}

impl std::fmt::Debug for JobQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobQueue")
            .field("jobs", &self.jobs.len())
            .field("budget", &self.budget)
            .field("over_budget_streak", &self.over_budget_streak)
            .finish()
    }
}

impl JobQueue {
    pub fn new(budget: Duration, clock: Box<dyn Clock>) -> Self {
        JobQueue {
            jobs: VecDeque::new(),
            budget,
            clock,
            over_budget_streak: 0,
        }
    }

    pub fn push(&mut self, job: impl Job + 'static) {
        self.jobs.push_back(Box::new(job));
    }

    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    pub fn budget(&self) -> Duration {
        self.budget
    }

    pub fn set_budget(&mut self, budget: Duration) {
        self.budget = budget;
    }

    /// Consecutive frames that ran out of budget; a caller can degrade work when it grows.
    pub fn over_budget_streak(&self) -> u32 {
        self.over_budget_streak
    }

    /// Runs units until the queue is empty or the budget is spent. At least one unit runs
    /// per call, so a budget smaller than one unit still makes progress.
    pub fn run(&mut self) -> BudgetReport {
        let mut report = BudgetReport::default();
        let deadline = self.clock.now() + self.budget.as_secs_f64();
        while let Some(job) = self.jobs.front_mut() {
            if report.units_run > 0 && self.clock.now() >= deadline {
                report.over_budget = true;
                break;
            }
            report.units_run += 1;
            if job.run_unit() == JobStatus::Done {
                self.jobs.pop_front();
                report.jobs_finished += 1;
            }
        }
        report.jobs_left = self.jobs.len();
        if report.over_budget {
            self.over_budget_streak += 1;
        } else {
            self.over_budget_streak = 0;
        }
        report
    }
}
