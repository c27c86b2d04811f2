//! The authorized projects' folder handles and the default project, behind one lock taken
//! briefly. A handle is authorized exactly while this map holds it: revoking removes it, and
//! an entry is never replaced while present, so a run's handle from before a revoke stays
//! refused. The lock is never held across `.await` or a database write (a revoke is stored
//! before its handle goes, so a handle put back meanwhile is seen as revoked).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;
use wisp_fs::Sandbox;

use crate::lock;

#[derive(Default)]
struct State {
    /// By project id.
    sandboxes: HashMap<String, Arc<Sandbox>>,
    /// The project of sessions created without one (`wisp serve DIR`).
    default_project: Option<String>,
}

/// The authorized projects' folder handles.
pub(crate) struct Projects {
    state: Mutex<State>,
    /// Bumped by every revoke, to wake what waits on a handle's authorization (a pending file
    /// approval).
    revocations: watch::Sender<u64>,
}

impl Default for Projects {
    fn default() -> Self {
        Self {
            state: Mutex::default(),
            revocations: watch::channel(0).0,
        }
    }
}

impl Projects {
    /// The handle of `project_id`, if it has one.
    pub(crate) fn get(&self, project_id: &str) -> Option<Arc<Sandbox>> {
        lock(&self.state).sandboxes.get(project_id).cloned()
    }

    /// Keeps `sandbox` as the handle of `project_id` unless it has one (runs holding the
    /// present one stay authorized), when `authorized` says the project still is; the handle
    /// in effect. `authorized` runs under the lock, so a revoke cannot slip between the check
    /// and the insert; it only reads.
    pub(crate) fn keep<E>(
        &self,
        project_id: &str,
        sandbox: Arc<Sandbox>,
        authorized: impl FnOnce() -> Result<bool, E>,
    ) -> Result<Option<Arc<Sandbox>>, E> {
        let mut state = lock(&self.state);
        if let Some(present) = state.sandboxes.get(project_id) {
            return Ok(Some(present.clone()));
        }
        if !authorized()? {
            return Ok(None);
        }
        state
            .sandboxes
            .insert(project_id.to_owned(), sandbox.clone());
        Ok(Some(sandbox))
    }

    /// Whether `sandbox` is an authorized handle.
    pub(crate) fn is_authorized(&self, sandbox: &Arc<Sandbox>) -> bool {
        lock(&self.state)
            .sandboxes
            .values()
            .any(|s| Arc::ptr_eq(s, sandbox))
    }

    /// Drops `project_id`'s handle (its revoke is already stored) and wakes what waits on it.
    pub(crate) fn revoked(&self, project_id: &str) {
        {
            let mut state = lock(&self.state);
            state.sandboxes.remove(project_id);
            if state.default_project.as_deref() == Some(project_id) {
                state.default_project = None;
            }
        }
        self.revocations.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Changes with every revoke.
    pub(crate) fn revocations(&self) -> watch::Receiver<u64> {
        self.revocations.subscribe()
    }

    pub(crate) fn default_project(&self) -> Option<String> {
        lock(&self.state).default_project.clone()
    }

    pub(crate) fn set_default_project(&self, project_id: &str) {
        lock(&self.state).default_project = Some(project_id.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handle() -> (tempfile::TempDir, Arc<Sandbox>) {
        let dir = tempfile::tempdir().unwrap();
        let sandbox = Arc::new(Sandbox::open(dir.path()).unwrap());
        (dir, sandbox)
    }

    #[test]
    fn a_handle_is_authorized_while_kept_and_never_replaced() {
        let projects = Projects::default();
        let (_a, first) = handle();
        let (_b, second) = handle();
        let kept = projects.keep("p1", first.clone(), || Ok::<_, ()>(true));
        assert!(Arc::ptr_eq(&kept.unwrap().unwrap(), &first));
        let kept = projects.keep("p1", second.clone(), || Ok::<_, ()>(true));
        assert!(
            Arc::ptr_eq(&kept.unwrap().unwrap(), &first),
            "never replaced"
        );
        assert!(projects.is_authorized(&first));
        assert!(!projects.is_authorized(&second));
        assert!(projects.get("p1").is_some());
    }

    #[test]
    fn a_revoke_drops_the_handle_clears_the_default_and_wakes_waiters() {
        let projects = Projects::default();
        let (_a, first) = handle();
        projects
            .keep("p1", first.clone(), || Ok::<_, ()>(true))
            .ok();
        projects.set_default_project("p1");
        let waiting = projects.revocations();
        projects.revoked("p1");
        assert!(!projects.is_authorized(&first));
        assert_eq!(projects.default_project(), None);
        assert!(waiting.has_changed().unwrap());
        // A project found revoked gets no handle back.
        let kept = projects.keep("p1", first.clone(), || Ok::<_, ()>(false));
        assert!(kept.unwrap().is_none());
        assert!(!projects.is_authorized(&first));
        let failed = projects.keep("p1", first, || Err("the database failed"));
        assert!(failed.is_err());
    }
}
