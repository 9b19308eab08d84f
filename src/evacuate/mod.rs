//! `throng evacuate`: an evacuation drill run headless on a level, and `throng check
//! --evacuate`.
//!
//! The level is loaded as the game loads it, the crowd spawned (`--people`, else the level's
//! `crowd.count`) and left to walk for `run::SETTLE_SECONDS`; then the alarm sounds. Without
//! `--alarm` it is the drill's alarm, heard everywhere (a designer's drill alarms everyone):
//! everyone reacts after their own pre-movement time (`crowd.behaviour.alarm.reaction_seconds`);
//! it is placed at the level's earliest timed alarm, else the middle of the spawn zones
//! (`run::default_alarm_point`). With `--alarm X,Z` it is a local alarm heard as the level's
//! `crowd.behaviour.alarm` says (its hearing radius, shorter past walls); everyone else learns
//! of it only by seeing people flee (contagion), or never. The level's own timed alarms are not
//! raised: the drill's alarm stands for them.
//! The crowd is stepped at the level's `crowd.tick_hz` until everyone is out, the limit passes,
//! or nothing can change any more (nobody inside is on the way out or can reach an open exit:
//! the run stops early and says so).
//!
//! | file | what |
//! |---|---|
//! | `args.rs` | the options and their parsers |
//! | `run.rs` | the drill: spawn, settle, alarm, steps, the step cost (normal against evacuating) |
//! | `report.rs` | the summary line, `evacuation.csv`, `evacuation.md` |
//! | `plot.rs` | `evacuation.png`, flow per exit over time, drawn with `crate::chart` |
//! | `command.rs` | the commands: checks before any work, the files written as one set |

pub mod args;
pub mod command;
pub mod plot;
pub mod report;
pub mod run;

pub use args::EvacuateArgs;
pub use command::{evacuate_levels, run_evacuate, Done, Failure};
pub use run::{default_alarm_point, AlarmPlace, Drill, Outcome};
