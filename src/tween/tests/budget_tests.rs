use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::tween::*;

/// A job of `units` units that each cost `cost` seconds on `clock` and log their name.
fn job(
    name: &'static str,
    units: usize,
    cost: f64,
    clock: &ManualClock,
    log: &Arc<Mutex<Vec<String>>>,
) -> impl Job {
    let clock = clock.clone();
    let log = Arc::clone(log);
    let mut done = 0;
    move || {
        clock.advance(cost);
        done += 1;
        log.lock().unwrap().push(format!("{name}{done}"));
        if done == units {
            JobStatus::Done
        } else {
            JobStatus::More
        }
    }
}

#[test]
fn work_beyond_the_budget_carries_over_to_later_frames() {
    let clock = ManualClock::new();
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut q = JobQueue::new(Duration::from_micros(2500), Box::new(clock.clone()));
    q.push(job("a", 4, 0.001, &clock, &log));
    q.push(job("b", 4, 0.001, &clock, &log));
    q.push(job("c", 4, 0.001, &clock, &log));
    let mut reports = Vec::new();
    while !q.is_empty() {
        reports.push(q.run());
    }
    let summary: Vec<(usize, usize, usize, bool)> = reports
        .iter()
        .map(|r| (r.units_run, r.jobs_finished, r.jobs_left, r.over_budget))
        .collect();
    // 1 ms units against a 2.5 ms budget: three units a frame.
    assert_eq!(
        summary,
        vec![
            (3, 0, 3, true),
            (3, 1, 2, true),
            (3, 1, 1, true),
            (3, 1, 0, false)
        ]
    );
    let log = log.lock().unwrap().join(" ");
    assert_eq!(
        log, "a1 a2 a3 a4 b1 b2 b3 b4 c1 c2 c3 c4",
        "FIFO, no unit lost or repeated"
    );
    assert_eq!(q.over_budget_streak(), 0);
}

#[test]
fn a_unit_larger_than_the_budget_still_progresses() {
    let clock = ManualClock::new();
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut q = JobQueue::new(Duration::ZERO, Box::new(clock.clone()));
    q.push(job("big", 3, 0.05, &clock, &log));
    assert_eq!(q.run().units_run, 1);
    assert_eq!(q.run().units_run, 1);
    assert_eq!(q.over_budget_streak(), 2);
    let last = q.run();
    assert_eq!(
        (last.units_run, last.jobs_finished, last.over_budget),
        (1, 1, false)
    );
}

#[test]
fn animator_runs_jobs_each_tick_and_stays_busy_until_done() {
    let clock = ManualClock::new();
    let log = Arc::new(Mutex::new(Vec::new()));
    let options = AnimatorOptions {
        budget: Duration::from_millis(2),
        ..AnimatorOptions::default()
    };
    let mut a: Animator = Animator::with_clock(options, Box::new(clock.clone()));
    a.push_job(job("rebake", 5, 0.0015, &clock, &log));
    assert!(a.tick(0.016));
    assert_eq!(a.last_budget().units_run, 2);
    assert!(a.tick(0.016));
    assert!(
        !a.tick(0.016),
        "the tick that finishes the last unit reports idle"
    );
    assert_eq!(log.lock().unwrap().len(), 5);
    assert!(!a.tick(0.016));
    assert_eq!(a.last_budget().units_run, 0);
}

#[test]
fn system_clock_moves_forward() {
    let c = SystemClock::default();
    let t0 = c.now();
    std::thread::sleep(Duration::from_millis(2));
    assert!(c.now() > t0);
}
