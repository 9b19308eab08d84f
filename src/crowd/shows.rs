//! Shows that draw crowds: a street performer or a small stage (placed things), and the hero
//! waving while standing still. Passers-by who can see a show (in range, within their field of
//! view, a clear line past obstacles) may stop; the chance grows with the crowd already watching
//! (`crowd.behaviour.show_stop`, after Milgram, Bickman & Berkowitz 1969). Watchers take places
//! on rings round the performance circle, inner rings first, leaving the performer's back and a
//! walkway outside the outermost ring clear; they watch for a sampled time, applaud and leave.
//! Every decision is counted (`DrawingPower`), so the curve the crowd follows can be measured.

use glam::Vec2;

use super::{AgentState, Crowd, Plan, BODY_RADIUS};
use crate::level::sandbox::Attraction;

/// Rings of places round a performance circle; the first stands this far beyond its edge.
const FIRST_RING_GAP: f32 = 0.8;
/// Between rings, and between neighbours on a ring (m): a body and a little room.
pub const RING_SPACING: f32 = 0.65;
const PLACE_SPACING: f32 = 0.7;
/// Half the arc the audience stands on, either side of the show's front: the back quarter,
/// behind the performer, stays open.
const AUDIENCE_HALF_ARC: f32 = 135.0;
/// The walkway kept free outside the outermost ring (m).
pub const WALKWAY: f32 = 1.5;
/// A passer-by's field of view, half angle (degrees).
const FIELD_OF_VIEW_HALF: f32 = 60.0;
/// Walkers look round for shows every this many steps (staggered by index).
const LOOK_EVERY: u64 = 10;
/// The hero's show: a small ring; a waving hero in front of you is harder to pass by than a
/// performer across the square (three times the pull), but she is seen from only 12 m.
const HERO_RINGS: usize = 2;
const HERO_PULL: f32 = 3.0;
/// Watch-count bins of the drawing-power tally (the last holds everything above).
pub const POWER_BINS: usize = 41;

/// Passers-by who saw a show and decided, by how many were watching then.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawingPower {
    pub asked: Vec<u32>,
    pub stopped: Vec<u32>,
}

impl Default for DrawingPower {
    fn default() -> Self {
        DrawingPower {
            asked: vec![0; POWER_BINS],
            stopped: vec![0; POWER_BINS],
        }
    }
}

impl DrawingPower {
    fn record(&mut self, watching: u32, stopped: bool) {
        let bin = (watching as usize).min(POWER_BINS - 1);
        self.asked[bin] += 1;
        if stopped {
            self.stopped[bin] += 1;
        }
    }

    pub fn add(&mut self, other: &DrawingPower) {
        for k in 0..POWER_BINS {
            self.asked[k] += other.asked[k];
            self.stopped[k] += other.stopped[k];
        }
    }
}

/// One show and its audience.
#[derive(Debug, Clone)]
pub struct Show {
    /// The placed thing's name, or "hero".
    pub name: String,
    pub spec: Attraction,
    /// Who performs (recruited from the crowd: the nearest person free to do it).
    pub performer: Option<u32>,
    /// Places on the rings, inner ring first, and who holds each (u32::MAX: free).
    pub places: Vec<Vec2>,
    pub ring_of: Vec<u8>,
    holder: Vec<u32>,
    rings: usize,
    /// Watchers standing at their places now (watching or applauding).
    pub watching: u32,
    /// Watchers on their way to a place.
    pub coming: u32,
    /// Applause given so far.
    pub applauded: u32,
    pub power: DrawingPower,
    /// The show is on: the performer is in place (for the hero: she waves, standing still).
    pub on: bool,
    /// The performer's own props, given back when they stop (they hold one while playing).
    performer_props: u16,
}

impl Show {
    /// The outermost ring's radius from the show's centre.
    pub fn outer_radius(&self) -> f32 {
        ring_radius(&self.spec, self.rings.saturating_sub(1))
    }

    /// The free walkway round the audience: inner and outer radius.
    pub fn walkway(&self) -> (f32, f32) {
        let r = self.outer_radius() + BODY_RADIUS + 0.1;
        (r, r + WALKWAY)
    }
}

fn ring_radius(spec: &Attraction, ring: usize) -> f32 {
    spec.radius + FIRST_RING_GAP + RING_SPACING * ring as f32
}

/// Rings a show's audience fills: more for a bigger draw.
fn ring_count(spec: &Attraction) -> usize {
    if spec.pull >= 1.5 {
        6
    } else {
        5
    }
}

impl Crowd {
    /// The shows of the level's placed things (the hero's, last, when she waves).
    pub fn shows(&self) -> &[Show] {
        &self.shows
    }

    /// Every show's tally added up.
    pub fn drawing_power(&self) -> DrawingPower {
        let mut all = DrawingPower::default();
        for s in &self.shows {
            all.add(&s.power);
        }
        all
    }

    /// Places on the rings of a show, dropping those inside obstacles or off the plaza.
    fn ring_places(&self, spec: &Attraction, rings: usize) -> (Vec<Vec2>, Vec<u8>) {
        let b = self.level.bounds;
        let (mut places, mut ring_of) = (Vec::new(), Vec::new());
        let front = spec.facing.y.atan2(spec.facing.x);
        let half = AUDIENCE_HALF_ARC.to_radians();
        for ring in 0..rings {
            let r = ring_radius(spec, ring);
            let n = ((2.0 * half * r) / PLACE_SPACING).floor().max(1.0) as usize;
            for k in 0..=n {
                let a = front - half + 2.0 * half * k as f32 / n as f32;
                let p = spec.centre + Vec2::from_angle(a) * r;
                let inside = p.cmpge(b.min + Vec2::splat(0.3)).all()
                    && p.cmple(b.max - Vec2::splat(0.3)).all();
                if inside && self.obstacles.is_free(p, BODY_RADIUS + 0.05) {
                    places.push(p);
                    ring_of.push(ring as u8);
                }
            }
        }
        (places, ring_of)
    }

    fn make_show(&self, name: String, spec: Attraction, rings: usize) -> Show {
        let (places, ring_of) = self.ring_places(&spec, rings);
        Show {
            name,
            spec,
            performer: None,
            holder: vec![u32::MAX; places.len()],
            places,
            ring_of,
            rings,
            watching: 0,
            coming: 0,
            applauded: 0,
            power: DrawingPower::default(),
            on: false,
            performer_props: 0,
        }
    }

    /// The shows the level's placed things put on, in `placed` order, keeping the audience and
    /// tally of any show whose place and look did not change.
    pub(super) fn rebuild_shows(&mut self) {
        let mut old = std::mem::take(&mut self.shows);
        // The hero's show is rebuilt from her next step's input.
        old.retain(|s| s.name != HERO_SHOW);
        let mut shows = Vec::new();
        for p in &self.level.placed {
            let Some(spec) = p.attraction() else {
                continue;
            };
            match old.iter().position(|s| s.name == p.name && s.spec == spec) {
                Some(k) => {
                    let mut kept = old.swap_remove(k);
                    // Obstacles may have moved round it: places change, audiences re-seat.
                    let (places, ring_of) = self.ring_places(&spec, kept.rings);
                    if places != kept.places {
                        kept.places = places;
                        kept.ring_of = ring_of;
                        kept.holder = vec![u32::MAX; kept.places.len()];
                    }
                    shows.push(kept);
                }
                None => {
                    let rings = ring_count(&spec);
                    shows.push(self.make_show(p.name.clone(), spec, rings));
                }
            }
        }
        // Performers of shows that are gone put their prop away.
        for gone in &old {
            if let Some(p) = gone
                .performer
                .map(|p| p as usize)
                .filter(|&p| p < self.len())
            {
                if self.state[p] == AgentState::Performing {
                    self.variant[p].props = gone.performer_props;
                }
            }
        }
        self.shows = shows;
        self.reseat_audiences();
    }

    /// After the shows changed: everyone who watched or performed at a show that is gone
    /// leaves; those whose show stayed take a place again (the nearest free one).
    fn reseat_audiences(&mut self) {
        for i in 0..self.len() {
            let (Plan::Watch { show, .. } | Plan::Perform(show)) = self.plan[i] else {
                continue;
            };
            let name = self.show_names.get(show as usize).cloned();
            let now = name.and_then(|n| self.shows.iter().position(|s| s.name == n));
            let me = Some(i as u32);
            match (now, self.plan[i]) {
                (Some(k), Plan::Perform(_))
                    if self.shows[k].performer.is_none() || self.shows[k].performer == me =>
                {
                    self.shows[k].performer = me;
                    self.plan[i] = Plan::Perform(k as u16);
                }
                (Some(k), Plan::Watch { place, .. })
                    if self.shows[k].holder.get(place as usize) == me.as_ref() =>
                {
                    self.plan[i] = Plan::Watch {
                        show: k as u16,
                        place,
                    };
                }
                (Some(k), Plan::Watch { .. }) => {
                    self.plan[i] = Plan::Wander;
                    if !self.take_place(i, k) {
                        self.leave_show(i);
                    }
                }
                _ => {
                    self.plan[i] = Plan::Wander;
                    self.leave_show(i);
                }
            }
        }
        self.show_names = self.shows.iter().map(|s| s.name.clone()).collect();
        self.count_audiences();
    }

    /// Someone whose show ended or moved away goes on with a new plan.
    fn leave_show(&mut self, i: usize) {
        let seen = self.shows_seen[i];
        self.state[i] = AgentState::Walking;
        self.look_at[i] = None;
        self.choose_plan(i);
        // Having watched, they do not stop again on the way out.
        self.shows_seen[i] |= seen;
    }

    /// Frees `i`'s place at a show, or the show's performer.
    pub(super) fn release_show_place(&mut self, i: usize) {
        match self.plan[i] {
            Plan::Watch { show, place } => {
                if let Some(s) = self.shows.get_mut(show as usize) {
                    if s.holder.get(place as usize) == Some(&(i as u32)) {
                        s.holder[place as usize] = u32::MAX;
                    }
                }
            }
            Plan::Perform(show) => {
                if let Some(s) = self.shows.get_mut(show as usize) {
                    if s.performer == Some(i as u32) {
                        s.performer = None;
                        s.on = false;
                        if self.state[i] == AgentState::Performing {
                            self.variant[i].props = s.performer_props;
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Gives `i` the free place nearest to it on the innermost ring with room; false when
    /// every place is taken.
    fn take_place(&mut self, i: usize, show: usize) -> bool {
        let here = self.pos[i];
        let s = &self.shows[show];
        let Some(ring) = (0..s.places.len())
            .filter(|&k| s.holder[k] == u32::MAX)
            .map(|k| s.ring_of[k])
            .min()
        else {
            return false;
        };
        let Some(place) = (0..s.places.len())
            .filter(|&k| s.holder[k] == u32::MAX && s.ring_of[k] == ring)
            .min_by(|&a, &b| {
                s.places[a]
                    .distance_squared(here)
                    .total_cmp(&s.places[b].distance_squared(here))
            })
        else {
            return false;
        };
        let spot = s.places[place];
        self.shows[show].holder[place] = i as u32;
        self.plan[i] = Plan::Watch {
            show: show as u16,
            place: place as u16,
        };
        self.state[i] = AgentState::Walking;
        self.look_at[i] = None;
        self.set_goal(i, spot);
        true
    }

    /// Can `i` see the show: in range, in its field of view (the way it walks), and no
    /// obstacle between them.
    fn sees(&self, i: usize, spec: &Attraction) -> bool {
        let to = spec.centre - self.pos[i];
        let d = to.length();
        if d > spec.seen_from || d < 1e-3 {
            return false;
        }
        let ahead = self.vel[i].try_normalize().unwrap_or(Vec2::ZERO);
        if ahead != Vec2::ZERO && ahead.dot(to / d) < FIELD_OF_VIEW_HALF.to_radians().cos() {
            return false;
        }
        // To the near edge of the mat: the show's own mat is low and does not hide it.
        let edge = spec.centre - to / d * (spec.radius + 0.05);
        self.nav.clear_line(self.pos[i], edge)
    }

    /// A free person to perform at a show with none: the nearest one walking alone with no
    /// fixed goal, not already at a show. Deterministic: ties go to the lower index.
    fn recruit_performer(&mut self, show: usize) {
        let spot = self.shows[show].spec.performer_spot;
        let pick = (0..self.len())
            .filter(|&i| {
                self.group_size[i] == 1
                    && !matches!(
                        self.plan[i],
                        Plan::Fixed | Plan::Watch { .. } | Plan::Perform(_)
                    )
                    && !matches!(
                        self.state[i],
                        AgentState::Scattering | AgentState::Controlled
                    )
                    && Some(i) != self.controlled
            })
            // Someone who can hold a balloon or an umbrella while playing, if anyone near can.
            .min_by_key(|&i| {
                let d = self.pos[i].distance(spot);
                let props = self.held_prop_bit(i).is_some();
                (!props, (d * 100.0) as u32, i)
            });
        if let Some(i) = pick {
            self.release_place(i);
            self.plan[i] = Plan::Perform(show as u16);
            self.state[i] = AgentState::Walking;
            self.look_at[i] = None;
            self.shows[show].performer = Some(i as u32);
            self.set_goal(i, spot);
            self.route_requests.retain(|&a| a as usize != i);
            self.route_requests.push_front(i as u32);
        }
    }

    /// The bit (in the person's variant group's prop list) of a prop a performer holds up: a
    /// balloon, else an umbrella.
    fn held_prop_bit(&self, i: usize) -> Option<u16> {
        use crate::level::PropKind;
        let group = self
            .level
            .crowd
            .variant_groups
            .get(self.variant[i].group as usize)?;
        [PropKind::Balloon, PropKind::Umbrella]
            .iter()
            .find_map(|want| group.props.iter().take(16).position(|p| p.prop == *want))
            .map(|k| k as u16)
    }

    /// The hero's show: on while she waves standing still (inputs), rebuilt where she stands.
    fn update_hero_show(&mut self, inputs: &super::StepInputs) {
        let waving = inputs.hero_waving && inputs.hero_velocity.length() < 0.2;
        let at = inputs.hero_position.filter(|h| h.is_finite() && waving);
        let k = self.shows.iter().position(|s| s.name == HERO_SHOW);
        match (at, k) {
            (Some(h), Some(k)) if self.shows[k].spec.centre.distance(h) < 0.5 => {}
            (Some(h), _) => {
                let facing = inputs.hero_facing.try_normalize().unwrap_or(Vec2::Y);
                let spec = Attraction {
                    centre: h,
                    radius: 0.4,
                    performer_spot: h,
                    facing,
                    seen_from: 12.0,
                    pull: HERO_PULL,
                };
                let mut show = self.make_show(HERO_SHOW.into(), spec, HERO_RINGS);
                show.on = true;
                if let Some(k) = k {
                    show.power = self.shows[k].power.clone();
                    self.shows[k] = show;
                } else {
                    self.shows.push(show);
                }
                self.reseat_audiences();
            }
            (None, Some(k)) if self.shows[k].on => {
                // She stopped: her audience applauds and goes.
                self.shows[k].on = false;
                for i in 0..self.len() {
                    if matches!(self.plan[i], Plan::Watch { show, .. } if show as usize == k)
                        && self.state[i] == AgentState::Watching
                    {
                        self.timer[i] = 0.0;
                    }
                }
            }
            _ => {}
        }
    }

    /// One step of every show: performers recruited and in place, passers-by deciding,
    /// watchers arriving, watching, applauding and leaving.
    pub(super) fn update_shows(&mut self, dt: f32, inputs: &super::StepInputs) {
        self.update_hero_show(inputs);
        if self.shows.is_empty() {
            return;
        }
        for k in 0..self.shows.len() {
            if self.shows[k].name == HERO_SHOW {
                continue;
            }
            match self.shows[k].performer {
                None => self.recruit_performer(k),
                Some(p) => {
                    let p = p as usize;
                    let spot = self.shows[k].spec.performer_spot;
                    if self.state[p] == AgentState::Walking && self.pos[p].distance(spot) < 0.5 {
                        self.state[p] = AgentState::Performing;
                        self.shows[k].performer_props = self.variant[p].props;
                        if let Some(bit) = self.held_prop_bit(p) {
                            self.variant[p].props = 1 << bit;
                        }
                        self.look_at[p] = Some(self.shows[k].spec.centre);
                        self.goal[p] = spot;
                        self.route[p].clear();
                    }
                    self.shows[k].on = self.state[p] == AgentState::Performing;
                }
            }
        }
        self.count_audiences();
        let curve = self.level.crowd.behaviour.show_stop;
        let watch = self.level.crowd.behaviour.show_watch_seconds;
        let applaud = self.level.crowd.behaviour.applaud_seconds;
        for i in 0..self.len() {
            match (self.state[i], self.plan[i]) {
                (AgentState::Walking, Plan::Watch { show, place }) => {
                    let s = &self.shows[show as usize];
                    let centre = s.spec.centre;
                    if !s.on && s.name == HERO_SHOW {
                        self.release_show_place(i);
                        self.leave_show(i);
                    } else if self.settled_at_place(i, s, place as usize) {
                        self.state[i] = AgentState::Watching;
                        let r = self.rand(i);
                        self.timer[i] = watch.min + (watch.max - watch.min) * r;
                        self.look_at[i] = Some(centre);
                    }
                }
                (AgentState::Watching, Plan::Watch { .. }) => {
                    self.timer[i] -= dt;
                    if self.timer[i] <= 0.0 {
                        self.state[i] = AgentState::Applauding;
                        self.timer[i] = applaud;
                    }
                }
                (AgentState::Applauding, Plan::Watch { show, .. }) => {
                    self.timer[i] -= dt;
                    if self.timer[i] <= 0.0 {
                        self.shows[show as usize].applauded += 1;
                        self.release_show_place(i);
                        self.leave_show(i);
                    }
                }
                (AgentState::Walking, Plan::Wander | Plan::Path { .. } | Plan::Poi(_))
                    if self.group_size[i] == 1
                        && (self.steps + i as u64).is_multiple_of(LOOK_EVERY)
                        && Some(i) != self.controlled =>
                {
                    self.consider_shows(i, &curve);
                }
                _ => {}
            }
        }
    }

    /// A walker looks round: each show it sees for the first time since its last plan gets one
    /// decision, by the curve at the audience there now.
    fn consider_shows(&mut self, i: usize, curve: &crate::level::StopCurve) {
        for k in 0..self.shows.len().min(64) {
            let bit = 1u64 << k;
            if self.shows_seen[i] & bit != 0 || !self.shows[k].on {
                continue;
            }
            if !self.sees(i, &self.shows[k].spec) {
                continue;
            }
            self.shows_seen[i] |= bit;
            let watching = self.shows[k].watching;
            let chance = curve.chance(watching) * self.shows[k].spec.pull;
            let stops = self.rand(i) < chance.min(1.0);
            let has_room = self.shows[k].holder.contains(&u32::MAX);
            if !has_room {
                continue;
            }
            self.shows[k].power.record(watching, stops);
            if stops {
                self.release_place(i);
                if self.take_place(i, k) {
                    self.shows[k].coming += 1;
                    return;
                }
            }
        }
    }

    /// At its place, or close to it and held up by the people round it (inside the rings).
    fn settled_at_place(&self, i: usize, s: &Show, place: usize) -> bool {
        let off = self.pos[i].distance(s.places[place]);
        let inside = self.pos[i].distance(s.spec.centre) < s.outer_radius() + 0.2;
        off < 0.45 || (off < 0.9 && inside && self.vel[i].length() < 0.3)
    }

    fn count_audiences(&mut self) {
        for s in &mut self.shows {
            s.watching = 0;
            s.coming = 0;
        }
        for i in 0..self.len() {
            if let Plan::Watch { show, .. } = self.plan[i] {
                if let Some(s) = self.shows.get_mut(show as usize) {
                    match self.state[i] {
                        AgentState::Watching | AgentState::Applauding => s.watching += 1,
                        _ => s.coming += 1,
                    }
                }
            }
        }
    }
}

/// The name of the hero's show.
pub const HERO_SHOW: &str = "hero";
