//! Alarms and evacuation. The player (or a level's alarm event) raises an alarm at a point:
//! people who hear it (a radius through open space, a shorter one past walls) react after a
//! pre-movement time; people who see others fleeing catch the alarm (contagion). The alarmed
//! drop what they were doing (a group first gathers round its leader), choose an exit by
//! walking distance and by the queue at it (re-choosing when a queue grows: RiMEA test 11's
//! behaviour), walk down that exit's distance field faster than usual, and leave the level
//! there: they are parked outside the simulation (`grid::PARKED`) until the all-clear, after
//! which they calm down and come back in over time.
//!
//! | person | enters when | leaves when |
//! |---|---|---|
//! | Calm | start, or calmed down / back in after the all-clear | hears the alarm or catches it |
//! | Heard | within hearing, or saw others flee | pre-movement time over → Fleeing |
//! | Fleeing(exit) | reacted, or their group did | reached the exit → Out; all-clear → Calming |
//! | Out(exit) | passed the exit | the all-clear and their return time → Calm, at that exit |
//! | Calming | all-clear while fleeing | calm timer over → Calm, a new plan |

use glam::Vec2;

use super::exit_field::{ExitField, WalkableGrid};
use super::grid::PARKED;
use super::{AgentState, Crowd, Plan};
use crate::level::{Exit, ExitArea, Range};

/// Someone this close to an exit's line (m), or inside its box, has left.
pub const OUT_REACH: f32 = 0.35;
/// Someone pushed out where no exit field reaches is out this close to an open exit (m).
const CUT_OFF_REACH: f32 = 1.0;
/// Fleeing people within this walking distance of an exit count as its queue (m).
pub const APPROACH: f32 = 10.0;
/// Steps between a fleeing person's exit re-choices (staggered by index).
const RECHOOSE_STEPS: u64 = 30;
/// Contagion runs every this many steps, covering their time.
const CONTAGION_STEPS: u64 = 4;
/// Seen fleeing neighbours beyond this many add nothing more.
const MAX_SEEN: f32 = 3.0;
/// Fastest a fleeing person walks (m/s).
pub const MAX_FLEE_SPEED: f32 = 2.5;
/// Density above which a crowd is dangerous (people per m²): the pressure layer's threshold.
pub const DANGER_DENSITY: f32 = 4.0;
/// Seconds of crossings an exit's observed flow is judged over.
const FLOW_WINDOW: f32 = 10.0;
/// Seconds between density samples.
const PRESSURE_EVERY: f32 = 0.5;
/// A fleeing group gathers first: members farther than this from their leader (m) walk to
/// them, and the leader waits for them ...
const GATHER_REACH: f32 = 2.0;
/// ... for this long at most after they set off (s), so nobody held up far away or behind a
/// wall keeps the group in danger for long.
const GATHER_SECONDS: f32 = 6.0;

/// Where one person stands with the alarm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PersonAlarm {
    #[default]
    Calm,
    /// Heard it or caught it; moves when their pre-movement time is over.
    Heard,
    Fleeing(u16),
    /// Left through this exit.
    Out(u16),
    /// Fleeing when the all-clear came: slowing down, then back to normal.
    Calming,
}

/// One exit in the running game.
#[derive(Debug, Clone, PartialEq)]
pub struct ExitStatus {
    pub name: String,
    pub area: ExitArea,
    /// People per second it is rated for.
    pub capacity: f32,
    pub closed: bool,
    /// Seconds after the alarm at which each person passed it, in order.
    pub crossings: Vec<f32>,
    /// Fleeing people heading for it within `APPROACH` of it (last step).
    pub approaching: u32,
}

impl ExitStatus {
    pub fn through(&self) -> usize {
        self.crossings.len()
    }

    /// People per second through the exit over the `window` seconds before `t`.
    pub fn flow(&self, t: f32, window: f32) -> f32 {
        let from = t - window;
        let n = self
            .crossings
            .iter()
            .rev()
            .take_while(|&&c| c > from)
            .filter(|&&c| c <= t)
            .count();
        n as f32 / window.max(1e-3)
    }
}

/// The alarm now sounding (or the last one, after the all-clear).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Alarm {
    pub at: Vec2,
    /// Seconds since it was raised.
    pub elapsed: f32,
    /// Seconds after raising at which the all-clear came.
    pub all_clear_at: Option<f32>,
    /// Seconds after raising at which the last person inside got out (nobody was left).
    pub emptied_at: Option<f32>,
}

/// Local density over the level during an alarm: each cell's peak and the seconds it spent
/// above `DANGER_DENSITY` (the measure crowd-safety work uses for crush risk).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PressureMap {
    pub origin: Vec2,
    /// Cell edge (m); densities are people per m² over 2 x 2 cells.
    pub cell: f32,
    pub cols: usize,
    pub rows: usize,
    pub peak: Vec<f32>,
    pub seconds_over: Vec<f32>,
    counts: Vec<u32>,
    since_sample: f32,
}

/// The worst crowding an evacuation met.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorstDensity {
    pub density: f32,
    pub at: Vec2,
    /// Seconds that spot spent above `DANGER_DENSITY`.
    pub seconds_over: f32,
}

impl PressureMap {
    fn new(origin: Vec2, size: Vec2) -> Self {
        let cell = 1.0f32.max((size.x * size.y / 1_000_000.0).sqrt());
        let cols = ((size.x / cell).ceil() as usize).max(2);
        let rows = ((size.y / cell).ceil() as usize).max(2);
        PressureMap {
            origin,
            cell,
            cols,
            rows,
            peak: vec![0.0; cols * rows],
            seconds_over: vec![0.0; cols * rows],
            counts: vec![0; cols * rows],
            since_sample: PRESSURE_EVERY,
        }
    }

    /// Counts everyone inside and updates peaks and durations (`covers` seconds since the
    /// last sample).
    fn sample(&mut self, pos: &[Vec2], covers: f32) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        for p in pos {
            let q = (*p - self.origin) / self.cell;
            if q.x >= 0.0 && q.y >= 0.0 {
                let (x, y) = (q.x as usize, q.y as usize);
                if x < self.cols && y < self.rows {
                    self.counts[y * self.cols + x] += 1;
                }
            }
        }
        let area = 4.0 * self.cell * self.cell;
        for y in 0..self.rows - 1 {
            for x in 0..self.cols - 1 {
                let c = y * self.cols + x;
                let n = self.counts[c]
                    + self.counts[c + 1]
                    + self.counts[c + self.cols]
                    + self.counts[c + self.cols + 1];
                if n == 0 {
                    continue;
                }
                let d = n as f32 / area;
                self.peak[c] = self.peak[c].max(d);
                if d > DANGER_DENSITY {
                    self.seconds_over[c] += covers;
                }
            }
        }
    }

    /// The 2 x 2-cell window with the highest peak (ties: the longest above the threshold).
    pub fn worst(&self) -> WorstDensity {
        let best = (0..self.peak.len()).max_by(|&a, &b| {
            self.peak[a]
                .total_cmp(&self.peak[b])
                .then(self.seconds_over[a].total_cmp(&self.seconds_over[b]))
                .then(b.cmp(&a))
        });
        match best {
            Some(c) => WorstDensity {
                density: self.peak[c],
                at: self.origin
                    + Vec2::new((c % self.cols) as f32 + 1.0, (c / self.cols) as f32 + 1.0)
                        * self.cell,
                seconds_over: self.seconds_over[c],
            },
            None => WorstDensity {
                density: 0.0,
                at: self.origin,
                seconds_over: 0.0,
            },
        }
    }
}

/// The crowd's evacuation state: exits, their distance fields, the alarm, each person's part.
#[derive(Default)]
pub struct Evacuation {
    exits: Vec<ExitStatus>,
    /// Built on the first alarm and after the scenery changes.
    walkable: Option<WalkableGrid>,
    fields: Vec<ExitField>,
    /// Per exit, the walking distances of the fleeing people heading for it (last step), in
    /// order: someone's queue is the people nearer the exit than they.
    queues: Vec<Vec<f32>>,
    alarm: Option<Alarm>,
    pub(super) person: Vec<PersonAlarm>,
    /// Seconds left of the person's pre-movement, calming or return time.
    pub(super) wait: Vec<f32>,
    /// People not Calm: none means the per-step work is skipped.
    involved: usize,
    pressure: PressureMap,
    /// Fleeing neighbours each calm person saw (contagion scratch).
    seen: Vec<u8>,
    contagion_dt: f32,
}

impl Evacuation {
    pub fn new(exits: &[Exit]) -> Self {
        Evacuation {
            exits: exits
                .iter()
                .map(|e| ExitStatus {
                    name: e.name.clone(),
                    area: e.area,
                    capacity: e.capacity(),
                    closed: e.closed,
                    crossings: Vec::new(),
                    approaching: 0,
                })
                .collect(),
            ..Default::default()
        }
    }

    pub fn exits(&self) -> &[ExitStatus] {
        &self.exits
    }

    pub fn alarm(&self) -> Option<Alarm> {
        self.alarm
    }

    /// True while an alarm sounds (raised, no all-clear yet).
    pub fn sounding(&self) -> bool {
        self.alarm.is_some_and(|a| a.all_clear_at.is_none())
    }

    pub fn pressure(&self) -> &PressureMap {
        &self.pressure
    }

    /// People who left and are not back yet.
    pub fn out(&self) -> usize {
        self.person
            .iter()
            .filter(|p| matches!(p, PersonAlarm::Out(_)))
            .count()
    }

    /// People alarmed and still inside (heard, fleeing).
    pub fn fleeing(&self) -> usize {
        self.person
            .iter()
            .filter(|p| matches!(p, PersonAlarm::Heard | PersonAlarm::Fleeing(_)))
            .count()
    }

    /// The scenery changed: the fields are rebuilt when next needed.
    pub(super) fn scenery_changed(&mut self) {
        self.walkable = None;
        self.fields.clear();
    }

    fn ensure_fields(&mut self, level: &crate::level::Level) {
        if self.walkable.is_none() {
            let grid = WalkableGrid::new(level);
            self.fields = self
                .exits
                .iter()
                .map(|e| ExitField::new(&grid, &e.area))
                .collect();
            self.walkable = Some(grid);
        }
    }

    /// Walking distance from `p` to exit `k` (infinite when closed or unreachable).
    pub fn distance_to_exit(&self, k: usize, p: Vec2) -> f32 {
        match (&self.walkable, self.fields.get(k), self.exits.get(k)) {
            (Some(grid), Some(field), Some(e)) if !e.closed => field.distance(grid, p),
            _ => f32::INFINITY,
        }
    }

    /// The exit with the shortest expected time from `p` at `speed`: walking time plus the
    /// queue at it over its capacity. None when no open exit can be reached.
    fn best_exit(&self, p: Vec2, speed: f32) -> Option<(u16, f32)> {
        (0..self.exits.len())
            .filter_map(|k| {
                let d = self.distance_to_exit(k, p);
                d.is_finite()
                    .then(|| (k as u16, self.expected_seconds(k, d, speed)))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
    }

    /// Seconds until someone `distance` from exit `k` is through it: the walk there, or the
    /// time the people ahead of them (those heading for it nearer to it) take to pass it when
    /// that is longer. A person's own place and those behind them do not count, nor does a
    /// queue that will be gone by the time they arrive.
    fn expected_seconds(&self, k: usize, distance: f32, speed: f32) -> f32 {
        let ahead = self
            .queues
            .get(k)
            .map_or(0, |q| q.partition_point(|&d| d < distance));
        (distance / speed.max(0.3)).max(ahead as f32 / self.service_rate(k))
    }

    /// People per second exit `k` lets through as people judge it: the flow they saw through
    /// it over the last `FLOW_WINDOW` seconds, or its rated capacity when that is more.
    fn service_rate(&self, k: usize) -> f32 {
        let e = &self.exits[k];
        let now = self.alarm.map_or(0.0, |a| a.elapsed);
        e.capacity.max(e.flow(now, FLOW_WINDOW)).max(0.1)
    }

    /// The open exit someone at `p` has reached: `heading` first, then any other (a person
    /// the crush pushes through another door than theirs is out all the same). Someone
    /// `cut_off` (standing where no field reaches: squeezed past a door's outer face beside
    /// its line) is out within `CUT_OFF_REACH` of an open exit.
    fn reached(&self, heading: usize, p: Vec2, cut_off: bool) -> Option<usize> {
        let reach = if cut_off { CUT_OFF_REACH } else { OUT_REACH };
        let at = |k: usize| {
            self.exits
                .get(k)
                .is_some_and(|e| !e.closed && e.area.distance(p) < reach)
        };
        if at(heading) {
            return Some(heading);
        }
        (0..self.exits.len()).find(|&k| at(k))
    }
}

fn draw(range: &Range, r: f32) -> f32 {
    range.min + (range.max - range.min) * r
}

impl Crowd {
    pub fn evacuation(&self) -> &Evacuation {
        &self.evacuation
    }

    /// Where person `i` stands with the alarm.
    pub fn alarm_of(&self, i: usize) -> PersonAlarm {
        self.evacuation.person.get(i).copied().unwrap_or_default()
    }

    /// True when person `i` has left through an exit and is not back.
    pub fn is_out(&self, i: usize) -> bool {
        matches!(self.alarm_of(i), PersonAlarm::Out(_))
    }

    /// Raises the alarm at `at`: whoever hears it reacts after their pre-movement time. A
    /// second alarm while one sounds adds its hearers; after an all-clear it starts a new
    /// evacuation (exit counts restart).
    pub fn raise_alarm(&mut self, at: Vec2) {
        if !at.is_finite() {
            return;
        }
        let level = self.level.clone();
        self.evacuation.ensure_fields(&level);
        if !self.evacuation.sounding() {
            for e in &mut self.evacuation.exits {
                e.crossings.clear();
            }
            self.evacuation.pressure = PressureMap::new(level.bounds.min, level.bounds.size());
            self.evacuation.alarm = Some(Alarm {
                at,
                elapsed: 0.0,
                all_clear_at: None,
                emptied_at: None,
            });
        }
        let b = level.crowd.behaviour.alarm;
        let (open_r2, walled_r2) = (
            b.hearing_radius * b.hearing_radius,
            (b.hearing_radius * b.behind_walls).powi(2),
        );
        for i in 0..self.len() {
            let d2 = self.pos[i].distance_squared(at);
            let calm = matches!(
                self.evacuation.person[i],
                PersonAlarm::Calm | PersonAlarm::Calming
            );
            if !calm || d2 > open_r2 || Some(i) == self.controlled {
                continue;
            }
            if d2 <= walled_r2 || self.nav.clear_line(at, self.pos[i]) {
                let r = self.rand(i);
                self.hear(i, draw(&b.reaction_seconds, r));
            }
        }
    }

    /// Everyone alarmed calms down over the next seconds; those who left come back in over
    /// the next minute or so.
    pub fn all_clear(&mut self) {
        let Some(alarm) = self.evacuation.alarm.as_mut() else {
            return;
        };
        if alarm.all_clear_at.is_some() {
            return;
        }
        alarm.all_clear_at = Some(alarm.elapsed);
        let b = self.level.crowd.behaviour.alarm;
        for i in 0..self.len() {
            let r = self.rand(i);
            match self.evacuation.person[i] {
                PersonAlarm::Heard => self.set_alarm(i, PersonAlarm::Calm),
                PersonAlarm::Fleeing(_) => {
                    self.evacuation.person[i] = PersonAlarm::Calming;
                    self.evacuation.wait[i] = draw(&b.calm_seconds, r);
                }
                PersonAlarm::Out(_) => self.evacuation.wait[i] = draw(&b.return_seconds, r),
                _ => {}
            }
        }
    }

    /// Opens or closes exit `k` while the game runs; people heading for a closed exit choose
    /// again at once. Returns whether it is now closed.
    pub fn set_exit_closed(&mut self, k: usize, closed: bool) -> bool {
        let Some(e) = self.evacuation.exits.get_mut(k) else {
            return false;
        };
        e.closed = closed;
        if closed {
            for i in 0..self.len() {
                if self.evacuation.person[i] == PersonAlarm::Fleeing(k as u16) {
                    self.flee_to_best_exit(i);
                }
            }
        }
        closed
    }

    fn set_alarm(&mut self, i: usize, to: PersonAlarm) {
        let from = std::mem::replace(&mut self.evacuation.person[i], to);
        match (from == PersonAlarm::Calm, to == PersonAlarm::Calm) {
            (true, false) => self.evacuation.involved += 1,
            (false, true) => self.evacuation.involved -= 1,
            _ => {}
        }
    }

    fn hear(&mut self, i: usize, reaction: f32) {
        self.set_alarm(i, PersonAlarm::Heard);
        self.evacuation.wait[i] = reaction;
    }

    /// Person `i` starts fleeing, and their group with them, to the exit best for the group's
    /// leader.
    fn start_fleeing(&mut self, i: usize) {
        let leader = self.group_leader[i] as usize;
        let members = leader..(leader + self.group_size[leader] as usize).min(self.len());
        let Some((exit, _)) = self
            .evacuation
            .best_exit(self.pos[leader], self.flee_speed(leader))
            .or_else(|| self.evacuation.best_exit(self.pos[i], self.flee_speed(i)))
        else {
            // Nowhere to go: stay alarmed and try again later.
            self.evacuation.wait[i] = 1.0;
            return;
        };
        for m in members {
            let ready = matches!(
                self.evacuation.person[m],
                PersonAlarm::Calm | PersonAlarm::Heard | PersonAlarm::Calming
            );
            if ready && Some(m) != self.controlled {
                self.flee(m, exit);
            }
        }
    }

    fn flee(&mut self, i: usize, exit: u16) {
        self.release_place(i);
        self.set_alarm(i, PersonAlarm::Fleeing(exit));
        self.evacuation.wait[i] = GATHER_SECONDS;
        self.state[i] = AgentState::Fleeing;
        self.plan[i] = Plan::Wander;
        self.look_at[i] = None;
        self.route[i].clear();
        self.route_requests.retain(|&a| a as usize != i);
        if let Some(f) = self.formation.get_mut(i) {
            *f = None;
        }
    }

    pub(super) fn flee_speed(&self, i: usize) -> f32 {
        (self.pref_speed[i] * self.level.crowd.behaviour.alarm.speed_factor).min(MAX_FLEE_SPEED)
    }

    fn flee_to_best_exit(&mut self, i: usize) {
        match self.evacuation.best_exit(self.pos[i], self.flee_speed(i)) {
            Some((k, _)) => self.evacuation.person[i] = PersonAlarm::Fleeing(k),
            None => self.goal[i] = self.pos[i],
        }
    }

    /// Pushes the per-person state for a new agent.
    pub(super) fn push_alarm_person(&mut self) {
        self.evacuation.person.push(PersonAlarm::Calm);
        self.evacuation.wait.push(0.0);
    }

    pub(super) fn truncate_alarm_people(&mut self, n: usize) {
        let gone = self.evacuation.person[n.min(self.evacuation.person.len())..]
            .iter()
            .filter(|p| **p != PersonAlarm::Calm)
            .count();
        self.evacuation.involved -= gone;
        self.evacuation.person.truncate(n);
        self.evacuation.wait.truncate(n);
    }

    /// One step of the alarm: reactions, contagion, exit choice and steering, people leaving,
    /// calming down and coming back, and the density record.
    pub(super) fn update_alarm(&mut self, dt: f32) {
        let Some(mut alarm) = self.evacuation.alarm else {
            return;
        };
        alarm.elapsed += dt;
        self.evacuation.alarm = Some(alarm);
        if self.evacuation.walkable.is_none() {
            let level = self.level.clone();
            self.evacuation.ensure_fields(&level);
        }
        if self.evacuation.involved > 0 {
            if alarm.all_clear_at.is_none() {
                self.spread_alarm(dt);
            }
            self.update_alarmed(dt, alarm.elapsed);
        }
        let inside = self.len() - self.evacuation.out();
        if let Some(a) = self.evacuation.alarm.as_mut() {
            if a.emptied_at.is_none() && inside == 0 {
                a.emptied_at = Some(a.elapsed);
            }
        }
        let p = &mut self.evacuation.pressure;
        p.since_sample += dt;
        if p.since_sample >= PRESSURE_EVERY && alarm.all_clear_at.is_none() {
            let covers = std::mem::take(&mut p.since_sample);
            p.sample(&self.pos, covers);
        }
    }

    /// Contagion: calm people who see others flee nearby catch the alarm.
    fn spread_alarm(&mut self, dt: f32) {
        self.evacuation.contagion_dt += dt;
        if !(self.steps).is_multiple_of(CONTAGION_STEPS) {
            return;
        }
        let covers = std::mem::take(&mut self.evacuation.contagion_dt);
        let b = self.level.crowd.behaviour.alarm;
        if b.contagion_rate <= 0.0 || b.sight_distance <= 0.0 {
            return;
        }
        let n = self.len();
        let mut seen = std::mem::take(&mut self.evacuation.seen);
        seen.clear();
        seen.resize(n, 0);
        let r2 = b.sight_distance * b.sight_distance;
        let order = self.grid.order();
        for f in 0..n {
            if !matches!(self.evacuation.person[f], PersonAlarm::Fleeing(_))
                || self.vel[f].length_squared() < 0.25
            {
                continue;
            }
            let p = self.pos[f];
            self.grid.for_each_near(p, b.sight_distance, |slot| {
                let j = order[slot] as usize;
                if self.evacuation.person[j] == PersonAlarm::Calm
                    && self.pos[j].distance_squared(p) < r2
                {
                    seen[j] = seen[j].saturating_add(1);
                }
            });
        }
        for (j, &saw) in seen.iter().enumerate() {
            if saw == 0 || Some(j) == self.controlled {
                continue;
            }
            let chance = 1.0 - (-b.contagion_rate * f32::from(saw).min(MAX_SEEN) * covers).exp();
            if self.rand(j) < chance {
                // Seeing people run needs no figuring out: half the usual pre-movement.
                let r = self.rand(j);
                self.hear(j, 0.5 * draw(&b.reaction_seconds, r));
            }
        }
        self.evacuation.seen = seen;
    }

    fn update_alarmed(&mut self, dt: f32, now: f32) {
        let exits = self.evacuation.exits.len();
        let mut queues: Vec<Vec<f32>> = vec![Vec::new(); exits];
        let margin = self.level.crowd.behaviour.alarm.switch_margin_seconds;
        for i in 0..self.len() {
            if Some(i) == self.controlled {
                // The player's keys decide where they go.
                continue;
            }
            match self.evacuation.person[i] {
                PersonAlarm::Calm => {}
                PersonAlarm::Heard => {
                    self.evacuation.wait[i] -= dt;
                    if self.evacuation.wait[i] <= 0.0 {
                        self.start_fleeing(i);
                    }
                }
                PersonAlarm::Fleeing(k) => {
                    let k = self.rechoose_exit(i, k, margin) as usize;
                    let p = self.pos[i];
                    let d = self.evacuation.distance_to_exit(k, p);
                    if let Some(out) = self.evacuation.reached(k, p, !d.is_finite()) {
                        self.leave(i, out as u16, now);
                        continue;
                    }
                    let gathering = self.gathering_goal(i, dt);
                    let e = &self.evacuation.exits[k];
                    if let (Some(grid), Some(field)) =
                        (&self.evacuation.walkable, self.evacuation.fields.get(k))
                    {
                        queues[k].push(d);
                        self.goal[i] = gathering
                            .or_else(|| field.steer_target(grid, &e.area, p))
                            .unwrap_or(p);
                    }
                }
                PersonAlarm::Calming => {
                    self.evacuation.wait[i] -= dt;
                    if self.evacuation.wait[i] <= 0.0 {
                        self.set_alarm(i, PersonAlarm::Calm);
                        self.choose_plan(i);
                    }
                }
                PersonAlarm::Out(k) => {
                    let cleared = self
                        .evacuation
                        .alarm
                        .is_some_and(|a| a.all_clear_at.is_some());
                    if cleared {
                        self.evacuation.wait[i] -= dt;
                        if self.evacuation.wait[i] <= 0.0 {
                            self.come_back(i, k as usize);
                        }
                    }
                }
            }
        }
        for (e, q) in self.evacuation.exits.iter_mut().zip(&mut queues) {
            q.sort_by(f32::total_cmp);
            e.approaching = q.partition_point(|&d| d < APPROACH) as u32;
        }
        self.evacuation.queues = queues;
    }

    /// Where person `i` goes while their fleeing group gathers (Sime 1983's affiliation: people
    /// escape with those they came with, and look for them first): a member apart from the
    /// leader walks to them, the leader waits while a member is apart. None once the group is
    /// together, or when the gathering time is over.
    fn gathering_goal(&mut self, i: usize, dt: f32) -> Option<Vec2> {
        let left = &mut self.evacuation.wait[i];
        if *left <= 0.0 {
            return None;
        }
        *left -= dt;
        let leader = self.group_leader[i] as usize;
        let members = leader..(leader + self.group_size[leader] as usize).min(self.len());
        let fleeing = |m: usize| matches!(self.evacuation.person[m], PersonAlarm::Fleeing(_));
        let apart = |m: usize| self.pos[m].distance(self.pos[leader]) > GATHER_REACH;
        if i != leader {
            (fleeing(leader) && apart(i)).then_some(self.pos[leader])
        } else {
            members
                .filter(|&m| m != i)
                .any(|m| fleeing(m) && apart(m))
                .then_some(self.pos[i])
        }
    }

    /// About twice a second a fleeing person weighs the exits again and switches when another
    /// promises to be quicker by the margin (or theirs closed).
    fn rechoose_exit(&mut self, i: usize, current: u16, margin: f32) -> u16 {
        let closed = self
            .evacuation
            .exits
            .get(current as usize)
            .is_none_or(|e| e.closed);
        let due = (self.steps + i as u64).is_multiple_of(RECHOOSE_STEPS);
        if !due && !closed {
            return current;
        }
        let speed = self.flee_speed(i);
        let p = self.pos[i];
        let Some((best, best_s)) = self.evacuation.best_exit(p, speed) else {
            return current;
        };
        let own_d = self.evacuation.distance_to_exit(current as usize, p);
        let own_s = if own_d.is_finite() {
            self.evacuation
                .expected_seconds(current as usize, own_d, speed)
        } else {
            f32::INFINITY
        };
        if best != current && best_s + margin < own_s {
            self.evacuation.person[i] = PersonAlarm::Fleeing(best);
            best
        } else {
            current
        }
    }

    fn leave(&mut self, i: usize, exit: u16, now: f32) {
        self.evacuation.exits[exit as usize].crossings.push(now);
        self.evacuation.person[i] = PersonAlarm::Out(exit);
        self.state[i] = AgentState::Evacuated;
        self.pos[i] = PARKED;
        self.vel[i] = Vec2::ZERO;
        self.goal[i] = PARKED;
        self.route[i].clear();
    }

    /// Back in at the exit they left by, with a new plan.
    fn come_back(&mut self, i: usize, exit: usize) {
        let b = self.level.bounds;
        let area = self.evacuation.exits[exit].area;
        let at = area.nearest_point(area.center());
        let inward = (b.center() - at).normalize_or_zero();
        let spread = self.rand(i) - 0.5;
        let along = match area {
            ExitArea::Line(a, c) => (c - a) * spread * 0.8,
            ExitArea::Box { half_extents, .. } => half_extents * spread,
        };
        let p =
            (at + along + inward * 0.5).clamp(b.min + Vec2::splat(0.3), b.max - Vec2::splat(0.3));
        self.pos[i] = self.obstacles.resolve(p, super::BODY_RADIUS);
        self.set_alarm(i, PersonAlarm::Calm);
        self.state[i] = AgentState::Walking;
        self.choose_plan(i);
    }
}
