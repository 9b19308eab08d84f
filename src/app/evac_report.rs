//! The `evacuation` section of `--stats-out`: the last alarm as the last frame left it, so a
//! test (or a script) can tell that people left and by which exit without reading pixels.

use crate::game::Game;
use crate::ui::evacuation::{fled_out_at, hud_lines, FLOW_WINDOW};

#[derive(serde::Serialize)]
pub struct EvacuationReport {
    /// Raised and no all-clear yet.
    sounding: bool,
    /// Where it was raised (x, z).
    at: [f32; 2],
    /// Seconds since it was raised.
    elapsed: f32,
    all_clear_at: Option<f32>,
    /// Everyone in the level out (the crowd's record).
    emptied_at: Option<f32>,
    /// Everyone who fled out, as the HUD says "emptied in T s".
    fled_out_at: Option<f32>,
    /// People in the level, those alarmed and still inside (heard or fleeing), and those out.
    inside: usize,
    fleeing: usize,
    out: usize,
    exits: Vec<ExitReport>,
    /// The densest spot the pressure record met.
    worst: WorstReport,
    /// The HUD's alarm box as drawn (empty once the result is no longer shown).
    hud: Vec<String>,
}

#[derive(serde::Serialize)]
struct ExitReport {
    name: String,
    closed: bool,
    through: usize,
    /// People per second over the last `FLOW_WINDOW` seconds, as the exit's label says.
    flow: f32,
}

#[derive(serde::Serialize)]
struct WorstReport {
    density: f32,
    at: [f32; 2],
    seconds_over: f32,
}

impl EvacuationReport {
    pub fn of(game: &Game) -> Option<EvacuationReport> {
        let evacuation = game.agents.evacuation();
        let alarm = evacuation.alarm()?;
        let out = evacuation.out();
        let worst = evacuation.pressure().worst();
        Some(EvacuationReport {
            sounding: evacuation.sounding(),
            at: alarm.at.to_array(),
            elapsed: alarm.elapsed,
            all_clear_at: alarm.all_clear_at,
            emptied_at: alarm.emptied_at,
            fled_out_at: fled_out_at(evacuation),
            inside: game.agents.len().saturating_sub(out),
            fleeing: evacuation.fleeing(),
            out,
            exits: evacuation
                .exits()
                .iter()
                .map(|e| ExitReport {
                    name: e.name.clone(),
                    closed: e.closed,
                    through: e.through(),
                    flow: e.flow(alarm.elapsed, FLOW_WINDOW),
                })
                .collect(),
            worst: WorstReport {
                density: worst.density,
                at: worst.at.to_array(),
                seconds_over: worst.seconds_over,
            },
            hud: hud_lines(evacuation, game.agents.len()),
        })
    }
}
