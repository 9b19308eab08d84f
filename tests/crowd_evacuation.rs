//! Alarms and evacuation on the plaza, headless: an alarm at the fountain empties the plaza
//! through its four street exits with nobody overlapping; a closed exit is avoided; the
//! all-clear brings everyone back; the same bits on 1, 2 and 8 threads.

mod support;

use glam::Vec2;
use throng::crowd::evacuation::PersonAlarm;
use throng::crowd::{AgentState, Crowd, StepInputs};
use throng::level::Level;

const DT: f32 = 1.0 / 60.0;

fn plaza_everyone_hears() -> Level {
    let mut level = support::plaza_level();
    level.crowd.behaviour.alarm.hearing_radius = 500.0;
    level
}

/// Steps until everyone is out or `limit` seconds pass; returns the seconds taken.
fn evacuate(c: &mut Crowd, limit: f32, mut each: impl FnMut(&Crowd)) -> f32 {
    let steps = (limit / DT) as usize;
    for s in 0..steps {
        c.step(DT, &StepInputs::default());
        each(c);
        if c.evacuation().out() == c.len() {
            return (s + 1) as f32 * DT;
        }
    }
    f32::INFINITY
}

#[test]
fn an_alarm_empties_the_plaza_through_its_exits() {
    let level = plaza_everyone_hears();
    let mut c = Crowd::from_level(&level, 2000, 7);
    for _ in 0..30 {
        c.step(DT, &StepInputs::default());
    }
    c.raise_alarm(Vec2::ZERO);
    let mut worst_pairs = 0;
    let t = evacuate(&mut c, 240.0, |c| {
        if c.steps() % 60 == 0 {
            worst_pairs = worst_pairs.max(c.close_pairs(0.35));
        }
    });
    let through: Vec<usize> = c.evacuation().exits().iter().map(|e| e.through()).collect();
    support::say(&format!(
        "2,000 people: out in {t:.1} s, through {through:?}, worst density {:?}",
        c.evacuation().pressure().worst()
    ));
    assert!(
        t.is_finite(),
        "{} left inside",
        c.len() - c.evacuation().out()
    );
    assert_eq!(worst_pairs, 0);
    assert!(through.iter().all(|&n| n > 100), "{through:?}");
    assert!((0..c.len()).all(|i| c.state[i] == AgentState::Evacuated));
    assert!((0..c.len()).all(|i| matches!(c.alarm_of(i), PersonAlarm::Out(_))));
}
