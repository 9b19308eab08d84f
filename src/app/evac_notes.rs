//! The evacuation's moments as notes (the notice line and the log): the first people out and
//! by which exit, and everyone who fled being out. Each is told once per alarm; a new alarm
//! (its clock starting again) tells them again.

use crate::crowd::evacuation::Evacuation;
use crate::ui::evacuation::fled_out_at;

#[derive(Default)]
pub struct EvacNotes {
    /// The clock of the alarm last seen, to tell a new alarm from the same one.
    last_elapsed: Option<f32>,
    first_out_told: bool,
    emptied_told: bool,
}

impl EvacNotes {
    /// What happened since the last call.
    pub fn notes(&mut self, evacuation: &Evacuation) -> Vec<String> {
        let Some(alarm) = evacuation.alarm() else {
            self.last_elapsed = None;
            return Vec::new();
        };
        if self.last_elapsed.is_none_or(|t| alarm.elapsed < t) {
            self.first_out_told = false;
            self.emptied_told = false;
        }
        self.last_elapsed = Some(alarm.elapsed);
        let mut notes = Vec::new();
        if !self.first_out_told {
            let first = evacuation
                .exits()
                .iter()
                .filter_map(|e| e.crossings.first().map(|&t| (t, e.name.as_str())))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((t, exit)) = first {
                self.first_out_told = true;
                notes.push(format!("first out by {exit}, {t:.1} s after the alarm"));
            }
        }
        if let (false, Some(t)) = (self.emptied_told, fled_out_at(evacuation)) {
            self.emptied_told = true;
            let out = evacuation.out();
            notes.push(format!(
                "everyone who fled is out: {out} people, emptied in {t:.1} s"
            ));
        }
        notes
    }
}
