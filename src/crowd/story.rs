//! Anyone's story: a person's generated name and age band, what they are doing and why, their
//! next two plans, who they walk with and how fast (the game's person card reads it), and the
//! player taking control of a person (steered like the hero, back to the crowd on release).

use glam::Vec2;

use super::{AgentState, Crowd, Plan};

/// A plan for later: the agenda's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// Visit point of interest k.
    Poi(u32),
    /// Walk a few legs of path p.
    Path(u32),
    Stroll,
}

const FIRST_NAMES: [&str; 48] = [
    "Ada", "Bruno", "Chiara", "Dmitri", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kaveh",
    "Lena", "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Samir", "Tove", "Umar", "Vera",
    "Wen", "Ximena", "Yusuf", "Zofia", "Amara", "Bea", "Carlos", "Dalia", "Emil", "Fatou",
    "Gustav", "Hana", "Ivo", "Jana", "Kofi", "Luca", "Mei", "Nils", "Olga", "Pablo", "Rania",
    "Sven", "Tariq", "Uma", "Viktor", "Yara",
];

const SURNAMES: [&str; 40] = [
    "Almeida",
    "Berger",
    "Castillo",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Gallo",
    "Haddad",
    "Ivanova",
    "Jensen",
    "Kowalski",
    "Lindqvist",
    "Moreau",
    "Nakamura",
    "Okafor",
    "Petrov",
    "Quinn",
    "Rossi",
    "Sato",
    "Tanaka",
    "Urban",
    "Varga",
    "Weber",
    "Yilmaz",
    "Zhang",
    "Amari",
    "Brandt",
    "Costa",
    "Daniel",
    "Engel",
    "Ferreira",
    "Grünwald",
    "Horvat",
    "Ibsen",
    "Jovanović",
    "Kim",
    "Larsen",
    "Mensah",
    "Novak",
    "Ortiz",
];

const AGE_BANDS: [&str; 6] = ["teens", "20s", "30s", "40s", "50s", "60s+"];

/// What the person card shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Story {
    pub name: String,
    pub age_band: &'static str,
    /// What they do now, e.g. "watching busker".
    pub doing: String,
    /// Why, or for how long: "40 s left", "place 3 of 7".
    pub why: String,
    /// Their next two plans.
    pub next: [String; 2],
    /// The names of the people they walk with.
    pub group: Vec<String>,
    /// m/s now.
    pub speed: f32,
}

/// The generated name of person `i` of a crowd seeded `seed`: the same person keeps it across
/// runs and threads.
pub fn person_name(seed: u64, i: usize) -> String {
    let mut s = seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5EED_CA4D;
    let a = super::splitmix64(&mut s);
    let b = super::splitmix64(&mut s);
    format!(
        "{} {}",
        FIRST_NAMES[(a % FIRST_NAMES.len() as u64) as usize],
        SURNAMES[(b % SURNAMES.len() as u64) as usize]
    )
}

fn age_band(seed: u64, i: usize) -> &'static str {
    let mut s = seed ^ (i as u64).wrapping_mul(0xD1B5_4A32_D192_ED03) ^ 0xA6E;
    AGE_BANDS[(super::splitmix64(&mut s) % AGE_BANDS.len() as u64) as usize]
}

impl Crowd {
    fn intent_label(&self, intent: Intent) -> String {
        match intent {
            Intent::Poi(k) => match self.level.points_of_interest.get(k as usize) {
                Some(p) => format!("{} at {}", activity_verb(p.activity), p.name),
                None => "stroll".into(),
            },
            Intent::Path(p) => match self.level.paths.get(p as usize) {
                Some(path) => format!("walk along {}", path.name),
                None => "stroll".into(),
            },
            Intent::Stroll => "stroll round the plaza".into(),
        }
    }

    fn show_name(&self, show: u16) -> String {
        self.shows
            .get(show as usize)
            .map_or_else(|| "a show".into(), |s| s.name.clone())
    }

    /// Person `i`'s story now; None past the crowd's end.
    pub fn story(&self, i: usize) -> Option<Story> {
        if i >= self.len() {
            return None;
        }
        let t = self.timer[i].max(0.0);
        let poi_name = |k: u32| {
            self.level
                .points_of_interest
                .get(k as usize)
                .map_or_else(String::new, |p| p.name.clone())
        };
        let (doing, why) = match (self.state[i], self.plan[i]) {
            (AgentState::Controlled, _) => {
                ("steered by you".into(), "release to let them go on".into())
            }
            (AgentState::Watching, Plan::Watch { show, .. }) => (
                format!("watching {}", self.show_name(show)),
                format!("{t:.0} s left"),
            ),
            (AgentState::Applauding, Plan::Watch { show, .. }) => (
                format!("applauding {}", self.show_name(show)),
                "the show was worth it".into(),
            ),
            (AgentState::Performing, Plan::Perform(show)) => {
                let watching = self.shows.get(show as usize).map_or(0, |s| s.watching);
                (
                    format!("performing at {}", self.show_name(show)),
                    format!("{watching} watching"),
                )
            }
            (AgentState::Walking, Plan::Watch { show, .. }) => (
                format!("going to watch {}", self.show_name(show)),
                "a crowd is gathering".into(),
            ),
            (AgentState::Walking, Plan::Perform(show)) => (
                format!("heading to perform at {}", self.show_name(show)),
                "asked to play there".into(),
            ),
            (AgentState::Queuing, Plan::Poi(k)) => {
                let line = self.queues.get(k as usize);
                let place = line
                    .and_then(|q| q.iter().position(|&a| a as usize == i))
                    .map_or(0, |p| p + 1);
                (
                    format!("queuing at {}", poi_name(k)),
                    format!("place {place} of {}", line.map_or(0, |q| q.len())),
                )
            }
            (AgentState::Sitting, Plan::Poi(k)) => (
                format!("sitting at {}", poi_name(k)),
                format!("{t:.0} s left"),
            ),
            (AgentState::Lingering, Plan::Poi(k)) => (
                format!("chatting at {}", poi_name(k)),
                format!("{t:.0} s left"),
            ),
            (AgentState::WatchingFountain, _) => {
                ("watching the fountain".into(), format!("{t:.0} s left"))
            }
            (AgentState::Fleeing, _) => {
                let exit = match self.alarm_of(i) {
                    super::evacuation::PersonAlarm::Fleeing(k) => self
                        .evacuation()
                        .exits()
                        .get(k as usize)
                        .map_or("an exit", |e| e.name.as_str()),
                    _ => "an exit",
                };
                (format!("fleeing to {exit}"), "the alarm went off".into())
            }
            (AgentState::Evacuated, _) => {
                let exit = match self.alarm_of(i) {
                    super::evacuation::PersonAlarm::Out(k) => self
                        .evacuation()
                        .exits()
                        .get(k as usize)
                        .map_or("an exit", |e| e.name.as_str()),
                    _ => "an exit",
                };
                (
                    format!("left through {exit}"),
                    "back after the all-clear".into(),
                )
            }
            (AgentState::Scattering, _) => (
                "running from a commotion".into(),
                format!("calm again in {t:.0} s"),
            ),
            (AgentState::Walking, Plan::Poi(k)) => {
                let poi = self.level.points_of_interest.get(k as usize);
                let verb = poi.map_or("visit", |p| activity_verb(p.activity));
                (
                    format!("walking to {}", poi_name(k)),
                    format!("to {verb} there"),
                )
            }
            (AgentState::Walking, Plan::Path { path, left, .. }) => {
                let name = self.level.paths.get(path as usize).map_or("", |p| &p.name);
                (
                    format!("walking along {name}"),
                    format!("{left} legs to go"),
                )
            }
            (AgentState::Walking, Plan::Wander) => {
                ("strolling".into(), "taking in the plaza".into())
            }
            (AgentState::Lingering, _) => ("looking around".into(), "a short pause".into()),
            (AgentState::Idle, _) | (_, Plan::Fixed) => ("standing".into(), "arrived".into()),
            (state, _) => (state.label().into(), String::new()),
        };
        let group = self
            .group(i)
            .filter(|&m| m != i)
            .map(|m| person_name(self.seed, m))
            .collect();
        Some(Story {
            name: person_name(self.seed, i),
            age_band: age_band(self.seed, i),
            doing,
            why,
            next: [
                self.intent_label(self.agenda[i][0]),
                self.intent_label(self.agenda[i][1]),
            ],
            group,
            speed: self.vel[i].length(),
        })
    }

    /// The person the player steers, if any.
    pub fn controlled(&self) -> Option<usize> {
        self.controlled
    }

    /// The player takes person `i` over: they leave what they were doing and walk where the
    /// hero's controls say (`set_control_velocity`). False past the crowd's end.
    pub fn take_control(&mut self, i: usize) -> bool {
        if i >= self.len() || self.is_out(i) {
            return false;
        }
        self.release_control();
        self.release_place(i);
        self.route_requests.retain(|&a| a as usize != i);
        self.route[i].clear();
        self.state[i] = AgentState::Controlled;
        self.look_at[i] = None;
        self.goal[i] = self.pos[i];
        self.controlled_speed = self.pref_speed[i];
        self.control_velocity = Vec2::ZERO;
        self.controlled = Some(i);
        true
    }

    /// The controlled person rejoins the crowd with a new plan.
    pub fn release_control(&mut self) {
        if let Some(i) = self.controlled.take() {
            self.pref_speed[i] = self.controlled_speed;
            self.state[i] = AgentState::Walking;
            self.choose_plan(i);
        }
    }

    /// Where the player pushes the controlled person (m/s, x and z).
    pub fn set_control_velocity(&mut self, v: Vec2) {
        self.control_velocity = if v.is_finite() { v } else { Vec2::ZERO };
    }

    /// The controlled person's goal a little ahead along the player's push, at its speed.
    pub(super) fn steer_controlled(&mut self) {
        let Some(i) = self.controlled else {
            return;
        };
        let v = self.control_velocity;
        let speed = v.length();
        self.pref_speed[i] = speed.clamp(0.05, 6.0);
        self.goal[i] = if speed > 0.05 {
            // Far enough ahead that steering never slows for arrival.
            self.pos[i] + v / speed * (speed * 2.0).max(3.0)
        } else {
            self.pos[i]
        };
        self.route[i].clear();
    }
}

fn activity_verb(a: crate::level::Activity) -> &'static str {
    match a {
        crate::level::Activity::Linger => "linger",
        crate::level::Activity::Sit => "sit",
        crate::level::Activity::WatchFountain => "watch the fountain",
        crate::level::Activity::Queue => "queue",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_stable_and_varied() {
        assert_eq!(person_name(7, 12), person_name(7, 12));
        let names: std::collections::HashSet<String> =
            (0..200).map(|i| person_name(7, i)).collect();
        assert!(names.len() > 150, "{} different names of 200", names.len());
    }
}
