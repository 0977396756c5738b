//! A spinner on stderr for work that takes over a second, hidden when stderr is not a terminal;
//! a progress bar with a rate and an estimate where the work reports how far it has come.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use txanon_data::progress::{Progress, Unit};

/// A spinner that appears only if the work is still running after one second.
#[derive(Debug)]
pub struct Spinner {
    bar: ProgressBar,
}

impl Spinner {
    /// Starts timing `message`; nothing is drawn for the first second, nor ever off a terminal.
    pub fn start(message: impl Into<String>) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"),
        );
        bar.set_message(message.into());
        if std::io::stderr().is_terminal() {
            let delayed = bar.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(1));
                if !delayed.is_finished() {
                    delayed.set_draw_target(ProgressDrawTarget::stderr());
                    delayed.enable_steady_tick(Duration::from_millis(120));
                }
            });
        }
        Self { bar }
    }

    /// A bar that follows `progress` (its phase, done and total, read ten times a second):
    /// bytes or items with a rate and an estimate of the time left when the phase has a
    /// total, a spinner with the count when it has none. Drawn, like the spinner, only after
    /// a second and only on a terminal.
    pub fn follow(progress: &Progress) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        if std::io::stderr().is_terminal() {
            let (delayed, progress) = (bar.clone(), progress.clone());
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(1));
                let mut shown: Option<(Unit, bool, bool)> = None;
                let mut last_phase = String::new();
                while !delayed.is_finished() {
                    let (phase, unit) = progress.phase();
                    let (total, done) = (progress.total(), progress.done());
                    if phase != last_phase {
                        // A new phase: its own rate, estimate and elapsed time.
                        delayed.reset();
                        last_phase.clone_from(&phase);
                    }
                    let style = (unit, total > 0, done > 0 || total > 0);
                    if shown != Some(style) {
                        delayed.set_style(meter_style(style.0, style.1, style.2));
                        if shown.is_none() {
                            delayed.set_draw_target(ProgressDrawTarget::stderr());
                        }
                        shown = Some(style);
                    }
                    delayed.set_message(phase);
                    delayed.set_length(total);
                    delayed.set_position(done);
                    delayed.tick();
                    std::thread::sleep(Duration::from_millis(100));
                }
            });
        }
        Self { bar }
    }

    /// Changes the message.
    pub fn set_message(&self, message: impl Into<String>) {
        self.bar.set_message(message.into());
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

fn meter_style(unit: Unit, bounded: bool, counting: bool) -> ProgressStyle {
    let template = match (unit, bounded, counting) {
        (_, false, false) => "{spinner} {msg} ({elapsed})",
        (Unit::Bytes, true, _) => {
            "{msg} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta} ({elapsed})"
        }
        (Unit::Items, true, _) => {
            "{msg} [{bar:30}] {human_pos}/{human_len} {per_sec:0} eta {eta} ({elapsed})"
        }
        (Unit::Bytes, false, true) => "{spinner} {msg} {bytes} {binary_bytes_per_sec} ({elapsed})",
        (Unit::Items, false, true) => "{spinner} {msg} {human_pos} {per_sec:0} ({elapsed})",
    };
    ProgressStyle::with_template(template).expect("valid template")
}
