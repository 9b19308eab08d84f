//! `throng record`: a level's crowd run headless and its trajectories written for analysis
//! tools, as JuPedSim's trajectory SQLite (format version 2, what PedPy reads with
//! `load_trajectory_from_jupedsim_sqlite` and `load_walkable_area_from_jupedsim_sqlite`) or as
//! PedPy's whitespace-separated text (`load_trajectory_from_txt`).
//!
//! | file | what |
//! |---|---|
//! | `args.rs` | the options and their parsers |
//! | `run.rs` | the command: the level loaded, the crowd stepped at 60 Hz, every K-th step written |
//! | `readings.rs` | `--readings`: Throng's own meters over the run, written as JSON |
//! | `recorder.rs` | `TrajectoryRecorder`: start, frames, finish; the file appears only at the end |
//! | `sqlite.rs` | the JuPedSim SQLite writer |
//! | `text.rs` | the PedPy text writer |
//! | `game_sink.rs` | the game's recordings: the recorder as a `game::measuring::TrajectorySink`, numbered files in `recordings/` |
//! | `walkable.rs` | the walkable area as WKT: the level's bounds less the obstacles' footprints |

pub mod args;
pub mod game_sink;
pub mod readings;
pub mod recorder;
pub mod run;
pub mod sqlite;
pub mod text;
pub mod walkable;

pub use args::RecordArgs;
pub use recorder::{Format, Recorded, TrajectoryRecorder};
pub use run::{run_record, RecordDone, STEP_HZ};
