//! A spinner on stderr for work that takes over a second, hidden when stderr is not a terminal.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

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
