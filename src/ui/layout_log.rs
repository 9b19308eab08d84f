//! Where the overlays put their panels and text in the last frame, so a test can tell whether
//! every text fits its panel and no panel hides another at any window size. The record and
//! the check are plain data; only `draw_text` (a drop-in for macroquad's) touches the window.

use std::cell::RefCell;

use macroquad::prelude::{Color, TextDimensions};

use super::pointer::Rect;

/// A panel's box, in the overlays' logical units.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PanelBox {
    pub name: String,
    pub rect: Rect,
}

/// A drawn text's box and the panel it was drawn in (None: a label over the world).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TextBox {
    pub panel: Option<String>,
    pub text: String,
    pub rect: Rect,
}

/// One frame's panels and texts, in drawing order.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LayoutLog {
    pub panels: Vec<PanelBox>,
    pub texts: Vec<TextBox>,
}

/// Panels that may cover panels drawn before them: a tooltip follows the pointer over
/// anything; the key help, the notice and the error and warning boxes are drawn after every
/// panel because they must be read (the help over a dimmed screen, the boxes stacked up from
/// the bottom). One drawn before another panel it overlaps is hidden beneath it (a stale
/// tooltip showing through), which is a problem like any overlap. Kept short on purpose.
const MAY_OVERLAP: &[&str] = &[
    "tooltip",
    "build ghost",
    "person card",
    "help",
    "notice",
    "level error",
    "model error",
    "slow warning",
];

/// Slack for rounding in text measurement, in logical units.
const SLACK: f32 = 1.0;

fn inside(inner: &Rect, outer: &Rect) -> bool {
    inner.x >= outer.x - SLACK
        && inner.y >= outer.y - SLACK
        && inner.x + inner.w <= outer.x + outer.w + SLACK
        && inner.y + inner.h <= outer.y + outer.h + SLACK
}

/// True when the two boxes share more than the slack on both axes.
fn overlap(a: &Rect, b: &Rect) -> bool {
    let w = (a.x + a.w).min(b.x + b.w) - a.x.max(b.x);
    let h = (a.y + a.h).min(b.y + b.h) - a.y.max(b.y);
    w > SLACK && h > SLACK
}

fn show(r: &Rect) -> String {
    format!("({:.0}, {:.0}) {:.0}x{:.0}", r.x, r.y, r.w, r.h)
}

/// What is wrong with a frame's layout on a `screen` (logical units): a text outside its
/// panel, a panel off the screen, two panels overlapping, a world label over a panel. Empty
/// when everything fits.
pub fn layout_problems(log: &LayoutLog, screen: glam::Vec2) -> Vec<String> {
    let mut problems = Vec::new();
    let whole = Rect {
        x: 0.0,
        y: 0.0,
        w: screen.x,
        h: screen.y,
    };
    for p in &log.panels {
        if !inside(&p.rect, &whole) {
            problems.push(format!(
                "panel '{}' at {} leaves the {:.0}x{:.0} screen",
                p.name,
                show(&p.rect),
                screen.x,
                screen.y
            ));
        }
    }
    for (i, a) in log.panels.iter().enumerate() {
        for b in &log.panels[i + 1..] {
            // `b` is drawn after `a`, so only `b` can be on top.
            let allowed = MAY_OVERLAP.contains(&b.name.as_str());
            if !allowed && overlap(&a.rect, &b.rect) {
                problems.push(format!(
                    "panels '{}' at {} and '{}' at {} overlap",
                    a.name,
                    show(&a.rect),
                    b.name,
                    show(&b.rect)
                ));
            }
        }
    }
    for t in &log.texts {
        match &t.panel {
            Some(name) => {
                // A panel may be registered in parts (a panel and its graph); any part holds.
                let boxes: Vec<&Rect> = log
                    .panels
                    .iter()
                    .filter(|p| &p.name == name)
                    .map(|p| &p.rect)
                    .collect();
                if !boxes.iter().any(|r| inside(&t.rect, r)) {
                    let at = boxes.first().map_or("nowhere".to_string(), |r| show(r));
                    problems.push(format!(
                        "text '{}' at {} runs outside its panel '{name}' at {at}",
                        t.text,
                        show(&t.rect)
                    ));
                }
            }
            None => {
                for p in &log.panels {
                    if !MAY_OVERLAP.contains(&p.name.as_str()) && overlap(&t.rect, &p.rect) {
                        problems.push(format!(
                            "label '{}' at {} is over panel '{}' at {}",
                            t.text,
                            show(&t.rect),
                            p.name,
                            show(&p.rect)
                        ));
                    }
                }
            }
        }
    }
    problems
}

thread_local! {
    static LOG: RefCell<(LayoutLog, Option<String>)> = RefCell::new(Default::default());
}

/// Starts a frame's record (the last one is dropped).
pub fn begin_frame() {
    LOG.with(|l| *l.borrow_mut() = Default::default());
}

/// The record so far.
pub fn snapshot() -> LayoutLog {
    LOG.with(|l| l.borrow().0.clone())
}

/// Texts drawn while this lives belong to the panel (until another panel starts).
#[must_use]
pub struct PanelScope(());

impl Drop for PanelScope {
    fn drop(&mut self) {
        LOG.with(|l| l.borrow_mut().1 = None);
    }
}

/// Registers a panel's box; the texts drawn until the returned scope ends are checked
/// against it.
pub fn panel(name: &str, rect: Rect) -> PanelScope {
    LOG.with(|l| {
        let mut l = l.borrow_mut();
        l.0.panels.push(PanelBox {
            name: name.to_string(),
            rect,
        });
        l.1 = Some(name.to_string());
    });
    PanelScope(())
}

/// Registers another box of the panel being drawn (e.g. the perf panel's frame graph).
pub fn panel_part(rect: Rect) {
    LOG.with(|l| {
        let mut l = l.borrow_mut();
        if let Some(name) = l.1.clone() {
            l.0.panels.push(PanelBox { name, rect });
        }
    });
}

/// macroquad's `draw_text`, recording the text's box with the panel being drawn.
pub fn draw_text(
    text: impl AsRef<str>,
    x: f32,
    y: f32,
    font_size: f32,
    color: Color,
) -> TextDimensions {
    let text = text.as_ref();
    let d = macroquad::prelude::draw_text(text, x, y, font_size, color);
    if !text.trim().is_empty() {
        LOG.with(|l| {
            let mut l = l.borrow_mut();
            let panel = l.1.clone();
            l.0.texts.push(TextBox {
                panel,
                text: text.to_string(),
                rect: Rect {
                    x,
                    y: y - d.offset_y,
                    w: d.width,
                    h: d.height,
                },
            });
        });
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    fn r(x: f32, y: f32, w: f32, h: f32) -> Rect {
        Rect { x, y, w, h }
    }

    fn panel(name: &str, rect: Rect) -> PanelBox {
        PanelBox {
            name: name.into(),
            rect,
        }
    }

    fn text(panel: Option<&str>, s: &str, rect: Rect) -> TextBox {
        TextBox {
            panel: panel.map(str::to_string),
            text: s.into(),
            rect,
        }
    }

    const SCREEN: Vec2 = Vec2::new(1280.0, 720.0);

    #[test]
    fn a_fitting_layout_has_no_problems() {
        let log = LayoutLog {
            panels: vec![
                panel("hud", r(10.0, 10.0, 300.0, 100.0)),
                panel("perf", r(10.0, 112.0, 340.0, 500.0)),
                panel("perf", r(10.0, 616.0, 340.0, 64.0)),
                // Touching edges is not overlapping.
                panel("hero", r(350.0, 112.0, 100.0, 100.0)),
                // Drawn last, on top of the two it touches.
                panel("tooltip", r(300.0, 100.0, 100.0, 40.0)),
            ],
            texts: vec![
                text(Some("hud"), "status", r(18.0, 14.0, 292.5, 16.0)),
                text(Some("perf"), "frame time", r(16.0, 620.0, 300.0, 12.0)),
                text(None, "walking", r(700.0, 400.0, 60.0, 14.0)),
            ],
        };
        assert_eq!(layout_problems(&log, SCREEN), Vec::<String>::new());
    }

    #[test]
    fn text_past_its_panel_overlaps_and_off_screen_panels_are_named() {
        let log = LayoutLog {
            panels: vec![
                // Drawn first, so the panel over it hides it.
                panel("tooltip", r(300.0, 400.0, 100.0, 40.0)),
                panel("perf", r(10.0, 112.0, 340.0, 500.0)),
                panel("cull view", r(10.0, 686.0, 1260.0, 26.0)),
                panel("expressions", r(930.0, 300.0, 340.0, 460.0)),
            ],
            texts: vec![
                text(
                    Some("perf"),
                    "people 1 (0/0/0/12438)",
                    r(22.0, 400.0, 340.0, 14.0),
                ),
                text(Some("nowhere"), "lost", r(0.0, 0.0, 10.0, 10.0)),
                text(None, "idle", r(300.0, 300.0, 60.0, 14.0)),
            ],
        };
        assert_eq!(
            layout_problems(&log, SCREEN),
            vec![
                "panel 'expressions' at (930, 300) 340x460 leaves the 1280x720 screen",
                "panels 'tooltip' at (300, 400) 100x40 and 'perf' at (10, 112) 340x500 overlap",
                "panels 'cull view' at (10, 686) 1260x26 and 'expressions' at (930, 300) \
                 340x460 overlap",
                "text 'people 1 (0/0/0/12438)' at (22, 400) 340x14 runs outside its panel \
                 'perf' at (10, 112) 340x500",
                "text 'lost' at (0, 0) 10x10 runs outside its panel 'nowhere' at nowhere",
                "label 'idle' at (300, 300) 60x14 is over panel 'perf' at (10, 112) 340x500",
            ]
        );
    }
}
