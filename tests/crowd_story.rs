//! Anyone's story and the player's hands on the crowd, headless: the person card's lines say
//! what someone does and why, and their next two plans are the ones they then follow; a person
//! taken over walks where the keys push and rejoins the crowd when let go; the hero waving
//! while standing still draws a small ring that faces her and leaves when she stops.

mod support;

use glam::Vec2;
use throng::crowd::shows::HERO_SHOW;
use throng::crowd::{AgentState, Crowd, Plan, StepInputs};
use throng::level::Level;

const DT: f32 = 1.0 / 60.0;

use support::say;

fn plaza() -> Level {
    support::plaza_level()
}

fn steps(c: &mut Crowd, seconds: f32, inputs: &StepInputs) {
    for _ in 0..(seconds / DT).round() as usize {
        c.step(DT, inputs);
    }
}

#[test]
fn the_card_tells_a_queuers_place_and_the_agenda_is_what_they_do_next() {
    let mut c = Crowd::from_level(&plaza(), 600, 5);
    steps(&mut c, 20.0, &StepInputs::default());
    let queuer = (0..c.len())
        .find(|&i| c.state[i] == AgentState::Queuing)
        .expect("someone queues at a kiosk");
    let story = c.story(queuer).expect("a story");
    say(&format!("{story:?}"));
    assert!(
        story.doing.starts_with("queuing at kiosk_"),
        "{}",
        story.doing
    );
    assert!(story.why.starts_with("place "), "{}", story.why);
    assert!(!story.name.is_empty() && story.name.contains(' '));
    // A stroller's next plan, read off the card, is the one it takes when this one ends.
    let walker = (0..c.len())
        .find(|&i| {
            c.plan[i] == Plan::Wander && c.state[i] == AgentState::Walking && c.group_size[i] == 1
        })
        .expect("a stroller");
    let next = c.story(walker).expect("a story").next[0].clone();
    let before = c.plan[walker];
    let mut changed = None;
    for _ in 0..(120.0 / DT) as usize {
        c.step(DT, &StepInputs::default());
        if c.plan[walker] != before && c.state[walker] == AgentState::Walking {
            changed = Some(c.plan[walker]);
            break;
        }
    }
    let plan = changed.expect("the stroll ended within two minutes");
    let pois = &c.level().points_of_interest;
    let paths = &c.level().paths;
    let label = match plan {
        Plan::Poi(k) => pois[k as usize].name.clone(),
        Plan::Path { path, .. } => paths[path as usize].name.clone(),
        Plan::Wander => "stroll".into(),
        other => format!("{other:?}"),
    };
    say(&format!("card said `{next}`, then {plan:?} ({label})"));
    assert!(
        next.contains(&label) || (label == "stroll" && next.starts_with("stroll")),
        "the card said `{next}`, the person then took {label}"
    );
}

#[test]
fn a_person_taken_over_walks_where_pushed_and_rejoins_the_crowd() {
    let mut c = Crowd::from_level(&plaza(), 300, 9);
    steps(&mut c, 2.0, &StepInputs::default());
    let i = (0..c.len())
        .find(|&i| c.pos[i].length() > 20.0 && c.pos[i].length() < 40.0)
        .expect("someone in the open");
    assert!(c.take_control(i));
    assert_eq!(c.state[i], AgentState::Controlled);
    let start = c.pos[i];
    let push = Vec2::new(1.0, 0.0).normalize() * 1.4;
    c.set_control_velocity(push);
    steps(&mut c, 5.0, &StepInputs::default());
    let moved = c.pos[i] - start;
    say(&format!("pushed east for 5 s: moved {moved}"));
    assert!(moved.x > 4.0, "walked east: {moved}");
    assert!(moved.y.abs() < 2.0, "and not much sideways: {moved}");
    c.set_control_velocity(Vec2::ZERO);
    steps(&mut c, 1.0, &StepInputs::default());
    assert!(c.vel[i].length() < 0.3, "stops when let be: {}", c.vel[i]);
    c.release_control();
    assert_eq!(c.controlled(), None);
    assert_ne!(c.state[i], AgentState::Controlled);
    steps(&mut c, 3.0, &StepInputs::default());
    assert!(
        c.vel[i].length() > 0.2 || c.state[i] != AgentState::Walking,
        "goes on with a plan"
    );
}

#[test]
fn the_hero_waving_still_draws_a_small_ring_that_leaves_when_she_stops() {
    let mut c = Crowd::from_level(&plaza(), 2_000, 3);
    let hero = Vec2::new(0.0, 20.0);
    let waving = StepInputs {
        hero_position: Some(hero),
        hero_waving: true,
        hero_facing: Vec2::new(0.0, -1.0),
        ..Default::default()
    };
    steps(&mut c, 40.0, &waving);
    let show = c
        .shows()
        .iter()
        .find(|s| s.name == HERO_SHOW)
        .expect("her show")
        .clone();
    let watchers: Vec<usize> = (0..c.len())
        .filter(|&i| c.state[i] == AgentState::Watching)
        .collect();
    say(&format!(
        "hero waving 40 s: {} watching, {} coming, {} asked",
        show.watching,
        show.coming,
        show.power.asked.iter().sum::<u32>()
    ));
    assert!(watchers.len() >= 3, "a small ring: {}", watchers.len());
    for &w in &watchers {
        let d = c.pos[w].distance(hero);
        // Within two bodies of the outer ring: the audience settles up to 0.6 m outside its
        // spots (17 watchers at 1.35-2.45 m for rings at 1.2 and 1.85 m, seed 3), where the
        // packed spots and the gentle drift back to them balance.
        assert!(
            d < show.outer_radius() + 4.0 * 0.2,
            "near her: {d}, outer ring {}",
            show.outer_radius()
        );
    }
    let still = StepInputs {
        hero_waving: false,
        ..waving
    };
    steps(&mut c, 8.0, &still);
    let left = (0..c.len())
        .filter(|&i| matches!(c.plan[i], Plan::Watch { .. }))
        .count();
    assert_eq!(left, 0, "her audience applauded and went");
}

#[test]
fn a_performer_holds_a_prop_while_playing_and_puts_it_away_when_removed() {
    use throng::level::{Placed, ThingKind};
    let mut level = plaza();
    let mut c = Crowd::from_level(&level, 800, 4);
    let before: Vec<u16> = c.variant.iter().map(|v| v.props).collect();
    level.placed.push(Placed {
        name: "busker".into(),
        kind: ThingKind::Performer,
        at: Vec2::new(0.0, 28.0),
        heading_deg: 180.0,
    });
    c.set_placed(&level);
    let mut waited = 0.0;
    while !c.shows()[0].on {
        steps(&mut c, 1.0, &StepInputs::default());
        waited += 1.0;
        assert!(waited < 90.0, "the performer arrives");
    }
    let p = c.shows()[0].performer.expect("a performer") as usize;
    assert_eq!(c.state[p], AgentState::Performing);
    let group = &c.level().crowd.variant_groups[c.variant[p].group as usize];
    let held: Vec<_> = (0..group.props.len())
        .filter(|k| c.variant[p].props & (1 << k) != 0)
        .map(|k| group.props[k].prop)
        .collect();
    say(&format!("performer {p} holds {held:?}"));
    assert!(
        held.iter().all(|k| matches!(
            k,
            throng::level::PropKind::Balloon | throng::level::PropKind::Umbrella
        )) && held.len() == 1,
        "one balloon or umbrella: {held:?}"
    );
    level.placed.clear();
    c.set_placed(&level);
    assert_eq!(c.variant[p].props, before[p], "their own props back");
    assert_ne!(c.state[p], AgentState::Performing);
}
