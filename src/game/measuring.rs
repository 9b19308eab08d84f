//! The running level measured the way crowd-safety engineers measure it: the live meters of its
//! measurement areas and lines (`measure::Meters`, fed every crowd step), and a trajectory
//! recording the player starts and stops (of everyone, or of the people inside one area).
//! The file itself is written by a `TrajectorySink` the app hands in (SQLite on the desktop),
//! so the game stays plain data.

use glam::Vec2;

use super::Game;
use crate::crowd::grid::PARKED;
use crate::level::Level;
use crate::measure::Meters;
use crate::polygon::polygon_contains;

/// Frames per simulated second of a recording made in the game: what PedPy's analyses need
/// (its speeds look ±0.5 s around a frame), at a sixth of the full rate's file size.
pub const RECORD_FPS: f64 = 10.0;

/// Where a recording's frames go (the app's file writer; a test's vector).
pub trait TrajectorySink {
    /// Writes one frame: person `i` of the slices is id `ids[i]`.
    fn write_frame(
        &mut self,
        frame: u64,
        ids: &[u32],
        pos: &[Vec2],
        heading: &[f32],
    ) -> Result<(), String>;
    /// Closes the file; what to tell the player (where it went, how big).
    fn finish(self: Box<Self>) -> Result<String, String>;
}

/// Opens a new recording's file for the running level: the sink and the file's name.
pub type SinkFactory = Box<dyn FnMut(&Level) -> Result<(Box<dyn TrajectorySink>, String), String>>;

/// Whom a recording keeps.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordWho {
    Everyone,
    /// Only the people inside this measurement area (its name and polygon when the recording
    /// started), frame by frame: those who leave it drop out of the file.
    InsideArea(String, Vec<Vec2>),
}

/// A recording under way.
pub struct Recording {
    sink: Option<Box<dyn TrajectorySink>>,
    /// The file's name, for the HUD.
    pub name: String,
    pub who: RecordWho,
    /// Simulated second it started.
    pub started: f64,
    next_frame_at: f64,
    pub frames: u64,
    /// People in the last frame written.
    pub last_people: usize,
    ids: Vec<u32>,
    pos: Vec<Vec2>,
    heading: Vec<f32>,
}

impl Recording {
    pub fn new(sink: Box<dyn TrajectorySink>, name: String, who: RecordWho, now: f64) -> Self {
        Recording {
            sink: Some(sink),
            name,
            who,
            started: now,
            next_frame_at: now,
            frames: 0,
            last_people: 0,
            ids: Vec::new(),
            pos: Vec::new(),
            heading: Vec::new(),
        }
    }

    /// Writes a frame when one is due at simulated second `now`: the crowd as it is drawn,
    /// ids 1 to N in the crowd's order (as `throng record` numbers them).
    fn sample(&mut self, now: f64, pos: &[Vec2], heading: &[f32]) -> Result<(), String> {
        // A hair of slack so a crowd stepping at exactly 10 fps multiples never skips one.
        if now + 1e-6 < self.next_frame_at {
            return Ok(());
        }
        self.next_frame_at += 1.0 / RECORD_FPS;
        if self.next_frame_at <= now {
            // The game was paused or stepped in a burst: the next frame is one period on.
            self.next_frame_at = now + 1.0 / RECORD_FPS;
        }
        self.ids.clear();
        self.pos.clear();
        self.heading.clear();
        for (i, (&p, &h)) in pos.iter().zip(heading).enumerate() {
            let kept = match &self.who {
                RecordWho::Everyone => p != PARKED,
                RecordWho::InsideArea(_, polygon) => polygon_contains(polygon, p),
            };
            if kept {
                self.ids.push(i as u32 + 1);
                self.pos.push(p);
                self.heading.push(h);
            }
        }
        self.last_people = self.ids.len();
        let frame = self.frames;
        self.frames += 1;
        match self.sink.as_mut() {
            Some(sink) => sink.write_frame(frame, &self.ids, &self.pos, &self.heading),
            None => Ok(()),
        }
    }

    /// Simulated seconds recorded.
    pub fn seconds(&self) -> f64 {
        self.frames as f64 / RECORD_FPS
    }

    fn finish(&mut self) -> Option<Result<String, String>> {
        self.sink.take().map(|s| s.finish())
    }
}

impl Drop for Recording {
    /// A game closed while recording still leaves a whole file.
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// Whether two levels differ only in their measurement areas and lines: moving one measures
/// somewhere else, it does not restart the crowd (or a recording).
pub fn differs_only_in_measurements(a: &Level, b: &Level) -> bool {
    let strip = |l: &Level| Level {
        measurement_areas: Vec::new(),
        measurement_lines: Vec::new(),
        ..l.clone()
    };
    (a.measurement_areas != b.measurement_areas || a.measurement_lines != b.measurement_lines)
        && strip(a) == strip(b)
}

impl Game {
    /// The live meters of the running level's measurement areas and lines.
    pub fn meters(&self) -> &Meters {
        &self.meters
    }

    /// New meters when the level's measurements changed (a reload, an edit): the readings
    /// start over, since the old window measured somewhere else.
    pub(super) fn refresh_meters(&mut self, force: bool) {
        let changed = force
            || self.meters_for.0 != self.level.measurement_areas
            || self.meters_for.1 != self.level.measurement_lines;
        if changed {
            self.meters = Meters::for_level(&self.level);
            self.step_moves.reset();
            self.meters_for = (
                self.level.measurement_areas.clone(),
                self.level.measurement_lines.clone(),
            );
        }
    }

    /// After each crowd step of `dt` seconds: the meters see the crowd (people who left the
    /// level are not measured; speeds from the step's moves, `measure::moves`), and a
    /// recording writes its frame when due.
    pub(super) fn measure_step(&mut self, dt: f32) {
        let now = self.sim_time;
        let a = &self.agents;
        let present = |i: usize| a.pos[i] != PARKED;
        // Always: the heat map's speeds are these too (`step_velocities`).
        let moves = &mut self.step_moves;
        let vel = a.on_pool(|| moves.update(&a.pos, dt, present));
        if !self.meters.is_empty() {
            self.meters.observe(now as f32, &a.pos, vel, present);
        }
        let Some(rec) = self.recording.as_mut() else {
            return;
        };
        let (pos, heading) = a.drawn_poses();
        if let Err(e) = rec.sample(now, pos, heading) {
            let name = rec.name.clone();
            self.recording = None;
            self.notes.push(format!("recording {name} stopped: {e}"));
        }
    }

    /// Each person's velocity over the last crowd step (their move over it): what the meters
    /// and the heat map read as speed. Empty before the first step.
    pub fn step_velocities(&self) -> &[Vec2] {
        self.step_moves.velocities()
    }

    /// The recording under way, if any.
    pub fn recording(&self) -> Option<&Recording> {
        self.recording.as_ref()
    }

    /// Starts recording into `sink` (a recording under way is finished first).
    pub fn start_recording(&mut self, sink: Box<dyn TrajectorySink>, name: String, who: RecordWho) {
        self.stop_recording();
        let whom = match &who {
            RecordWho::Everyone => "everyone".to_string(),
            RecordWho::InsideArea(area, _) => format!("the people inside area {area}"),
        };
        self.notes.push(format!(
            "recording {whom} at {RECORD_FPS} frames per simulated second to {name}"
        ));
        let mut rec = Recording::new(sink, name, who, self.sim_time);
        // Frame 0 is the crowd as it stands now; the next ones every 1 / RECORD_FPS s on.
        let (pos, heading) = self.agents.drawn_poses();
        match rec.sample(self.sim_time, pos, heading) {
            Ok(()) => self.recording = Some(rec),
            Err(e) => self
                .notes
                .push(format!("recording {} failed: {e}", rec.name)),
        }
    }

    /// Where recordings go: set by the app that can write files.
    pub fn set_sink_factory(&mut self, factory: SinkFactory) {
        self.sink_factory = Some(factory);
    }

    /// O, the toolbar's and the panel's buttons: stops the recording under way, or starts one
    /// of everyone (`None`) or of the people inside measurement area `area`.
    pub fn toggle_recording(&mut self, area: Option<usize>) {
        if self.stop_recording() {
            return;
        }
        let who = match area {
            None => RecordWho::Everyone,
            Some(k) => match self.level.measurement_areas.get(k) {
                Some(a) => RecordWho::InsideArea(a.name.clone(), a.polygon.clone()),
                None => return,
            },
        };
        let Some(factory) = self.sink_factory.as_mut() else {
            self.notes.push(
                "recording trajectories needs the desktop build (`throng record` too)".into(),
            );
            return;
        };
        match factory(&self.level) {
            Ok((sink, name)) => self.start_recording(sink, name, who),
            Err(e) => self.notes.push(format!("cannot record: {e}")),
        }
    }

    /// Stops the recording under way and says where it went; false when none was.
    pub fn stop_recording(&mut self) -> bool {
        let Some(mut rec) = self.recording.take() else {
            return false;
        };
        let note = match rec.finish() {
            Some(Ok(done)) => done,
            Some(Err(e)) => format!("recording {} failed: {e}", rec.name),
            None => return true,
        };
        self.notes.push(note);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// Frames as written: (frame, ids).
    type Written = Arc<Mutex<Vec<(u64, Vec<u32>)>>>;

    struct Collect(Written, Arc<Mutex<bool>>);

    impl TrajectorySink for Collect {
        fn write_frame(
            &mut self,
            frame: u64,
            ids: &[u32],
            _: &[Vec2],
            _: &[f32],
        ) -> Result<(), String> {
            self.0
                .lock()
                .map_err(|e| e.to_string())?
                .push((frame, ids.to_vec()));
            Ok(())
        }
        fn finish(self: Box<Self>) -> Result<String, String> {
            *self.1.lock().map_err(|e| e.to_string())? = true;
            Ok("finished".into())
        }
    }

    fn game() -> Game {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = include_str!("../../levels/plaza.ron");
        let level = crate::level::parse_level(text, "plaza.ron", root).expect("the plaza loads");
        Game::new(
            level,
            crate::game::GameOptions {
                crowd: Some(300),
                seed: Some(3),
            },
        )
    }

    fn run(game: &mut Game, seconds: f64) {
        let steps = (seconds * super::super::SIM_RATE).round() as usize;
        for _ in 0..steps {
            game.step(1.0 / super::super::SIM_RATE as f32, None);
        }
    }

    #[test]
    fn a_recording_writes_ten_frames_a_second_and_finishes_when_stopped_or_dropped() {
        let mut g = game();
        let written: Written = Default::default();
        let finished = Arc::new(Mutex::new(false));
        let sink = Collect(written.clone(), finished.clone());
        g.start_recording(Box::new(sink), "t".into(), RecordWho::Everyone);
        run(&mut g, 3.0);
        let frames = written.lock().unwrap().clone();
        // Frame 0 at the start, then one every 0.1 s.
        assert_eq!(frames.len(), 31);
        assert!(frames.iter().enumerate().all(|(k, f)| f.0 == k as u64));
        assert!(frames.iter().all(|f| f.1.len() == 300));
        assert!(g.stop_recording());
        assert!(*finished.lock().unwrap());
        assert!(!g.stop_recording());

        let finished = Arc::new(Mutex::new(false));
        let sink = Collect(Default::default(), finished.clone());
        g.start_recording(Box::new(sink), "t2".into(), RecordWho::Everyone);
        drop(g);
        assert!(
            *finished.lock().unwrap(),
            "dropping the game finishes the file"
        );
    }

    #[test]
    fn an_area_recording_keeps_only_the_people_inside_it_frame_by_frame() {
        let mut g = game();
        run(&mut g, 20.0);
        let area = g.level().measurement_areas[0].polygon.clone();
        let written: Written = Default::default();
        let sink = Collect(written.clone(), Default::default());
        let who = RecordWho::InsideArea("south_street_area".into(), area.clone());
        g.start_recording(Box::new(sink), "a".into(), who);
        run(&mut g, 5.0);
        let frames = written.lock().unwrap().clone();
        assert_eq!(frames.len(), 51);
        // The last frame was written after the last step: exactly those inside now.
        let (pos, _) = g.agents.drawn_poses();
        let inside: Vec<u32> = (0..pos.len())
            .filter(|&i| polygon_contains(&area, pos[i]))
            .map(|i| i as u32 + 1)
            .collect();
        assert_eq!(frames.last().unwrap().1, inside);
        let people: std::collections::BTreeSet<u32> =
            frames.iter().flat_map(|f| f.1.iter().copied()).collect();
        assert!(
            !people.is_empty() && people.len() < 300,
            "{} people passed through the area",
            people.len()
        );
        assert!(frames.iter().any(|f| f.1.len() != frames[0].1.len()));
    }

    #[test]
    fn the_plazas_meters_read_the_street_while_the_game_runs() {
        let mut g = game();
        run(&mut g, 30.0);
        let areas = g.meters().area_readings();
        let lines = g.meters().line_readings();
        assert_eq!(areas.len(), 1);
        assert_eq!(lines.len(), 1);
        assert!(areas[0].1.classic_density >= 0.0);
        let crossed = lines[0].1.forward_total + lines[0].1.backward_total;
        assert!(crossed > 0, "nobody crossed the north street line in 30 s");
    }
}
