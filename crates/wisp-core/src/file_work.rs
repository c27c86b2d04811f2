//! Counted blocking file work: every file task of the Host (tool calls, previews, project
//! checks) holds a slot while it runs, so `/api/health` can say when tasks pile up and new ones
//! are refused before they could exhaust the blocking thread pool.
//!
//! The sandbox never blocks on what a project holds (FIFOs, sockets and devices are refused
//! without being opened), but a hung network or FUSE file system can still hold a thread in a
//! plain read. A caller may stop waiting for such a task (cancel); its slot is freed only when
//! the work really ends, so the count tells the truth about stuck threads.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{CoreError, CoreErrorKind, fail, limits};

/// One slot of [`limits::MAX_FILE_TASKS`], held while a file task runs; freed on drop, also
/// when the task panics.
#[derive(Debug)]
pub(crate) struct FileTask {
    count: Arc<AtomicUsize>,
}

impl Drop for FileTask {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The Host's count of file tasks running now; a clone counts into the same.
#[derive(Debug, Default, Clone)]
pub(crate) struct FileTasks {
    count: Arc<AtomicUsize>,
}

impl FileTasks {
    /// Claims a slot for one file task, or refuses when [`limits::MAX_FILE_TASKS`] are still
    /// running.
    pub(crate) fn claim(&self) -> Result<FileTask, CoreError> {
        let count = &self.count;
        count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < limits::MAX_FILE_TASKS).then_some(n + 1)
            })
            .map_err(|n| {
                tracing::warn!(running = n, "file task refused: too many still running");
                fail(
                    CoreErrorKind::Conflict,
                    format!(
                        "{n} file operations are still running (a file system may be hanging); nothing was done, try again later"
                    ),
                )
            })?;
        Ok(FileTask {
            count: count.clone(),
        })
    }

    /// Runs `work` on the blocking pool as a counted file task. The caller may stop waiting
    /// for the handle; the slot stays taken until `work` has really returned.
    pub(crate) fn spawn<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<tokio::task::JoinHandle<T>, CoreError> {
        let slot = self.claim()?;
        Ok(tokio::task::spawn_blocking(move || {
            let _slot = slot;
            work()
        }))
    }

    /// File tasks running now, stuck ones included.
    pub(crate) fn running(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests;
