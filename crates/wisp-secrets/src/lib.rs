//! Wisp's secrets: the model API key now, local MCP servers' variables next — one module, one
//! naming scheme, two places a secret can live.
//!
//! - [`SecretStore`] is what the Host uses: `get`, `set` and `delete` by entry name.
//! - [`Keyring`] keeps entries in the OS secret store (Secret Service over D-Bus on Linux, the
//!   Keychain on macOS, the Credential Manager on Windows) under service [`SERVICE`] and the
//!   entry's name as account: `model-api-key`, `mcp/<server-id>/<VAR>`.
//! - [`ProcessOnly`] keeps entries in this process's memory: gone when the Host stops. It is the
//!   person's choice when there is no reachable OS store (no D-Bus session, a locked keychain).
//! - [`Secrets`] puts both behind one name lookup and says where a value came from. Made with
//!   [`Secrets::lazy`], it opens the OS store only when a value must be read from or kept in
//!   it (MCP-18): a Host with nothing stored there never touches it, and
//!   [`Secrets::keyring_accesses`] counts every time it did.
//!
//! A secret is never written to a file by this crate, never logged, and never part of an
//! error message.
//!
//! ```
//! use wisp_secrets::{Keyring, Secrets, Storage};
//! let secrets = Secrets::new(Ok(Keyring::mock()));
//! secrets.set("model-api-key", "sk-example", Storage::Keyring).unwrap();
//! assert_eq!(secrets.get("model-api-key").unwrap().unwrap().1, Storage::Keyring);
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The keyring service every Wisp entry is filed under.
pub const SERVICE: &str = "wisp";

/// The entry of the model provider's API key.
pub const MODEL_API_KEY: &str = "model-api-key";

/// Where a secret lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// The OS secret store: survives restarts.
    Keyring,
    /// This Host process only.
    Process,
}

/// Why a secret could not be read, kept or removed. The message never contains the secret.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SecretError {
    /// No OS secret store can be reached (no D-Bus session bus or Secret Service, a locked or
    /// refused keychain). The person can keep the secret for this Host process only.
    #[error(
        "the system's secret store cannot be reached ({0}); keep the key for this Wisp session only, or unlock or install a secret store (e.g. GNOME Keyring) and try again"
    )]
    Unavailable(String),
    /// The store answered but refused or failed the operation.
    #[error("the system's secret store failed: {0}")]
    Failed(String),
}

/// Entries by name.
pub trait SecretStore: Send + Sync {
    /// The value of `name`, if there is one.
    fn get(&self, name: &str) -> Result<Option<String>, SecretError>;
    /// Keeps `value` as `name`, replacing what was there.
    fn set(&self, name: &str, value: &str) -> Result<(), SecretError>;
    /// Removes `name`; removing what is not there is fine.
    fn delete(&self, name: &str) -> Result<(), SecretError>;
}

/// The OS secret store (or, in tests, keyring-core's in-memory mock store).
#[derive(Clone)]
pub struct Keyring {
    store: Arc<keyring_core::CredentialStore>,
}

impl fmt::Debug for Keyring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Keyring")
    }
}

impl Keyring {
    /// Connects to this platform's secret store. Blocking (D-Bus on Linux): call it off the
    /// async threads.
    pub fn platform() -> Result<Self, SecretError> {
        platform_store().map(|store| Self { store })
    }

    /// keyring-core's mock store: in memory, same API — for tests.
    pub fn mock() -> Self {
        match keyring_core::mock::Store::new() {
            Ok(store) => Self { store },
            // The mock store's constructor cannot fail; keep a usable value anyway.
            Err(_) => Self {
                store: Arc::new(FailingStore),
            },
        }
    }

    fn entry(&self, name: &str) -> Result<keyring_core::Entry, SecretError> {
        keyring_core::Entry::new_in_store(&self.store, SERVICE, name).map_err(map_error)
    }
}

#[cfg(target_os = "linux")]
fn platform_store() -> Result<Arc<keyring_core::CredentialStore>, SecretError> {
    let store = zbus_secret_service_keyring_store::Store::new().map_err(|e| {
        tracing::info!(error = %e, "no Secret Service");
        SecretError::Unavailable(short(&e))
    })?;
    Ok(store)
}

#[cfg(target_os = "macos")]
fn platform_store() -> Result<Arc<keyring_core::CredentialStore>, SecretError> {
    let store = apple_native_keyring_store::keychain::Store::new()
        .map_err(|e| SecretError::Unavailable(short(&e)))?;
    Ok(store)
}

#[cfg(target_os = "windows")]
fn platform_store() -> Result<Arc<keyring_core::CredentialStore>, SecretError> {
    let store = windows_native_keyring_store::Store::new()
        .map_err(|e| SecretError::Unavailable(short(&e)))?;
    Ok(store)
}

#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
fn platform_store() -> Result<Arc<keyring_core::CredentialStore>, SecretError> {
    Err(SecretError::Unavailable(
        "this platform has no supported secret store".into(),
    ))
}

/// Characters of a store's own error kept in a message.
const MAX_STORE_ERROR_CHARS: usize = 200;

fn short(e: &dyn fmt::Display) -> String {
    e.to_string()
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_STORE_ERROR_CHARS)
        .collect()
}

fn map_error(e: keyring_core::Error) -> SecretError {
    match e {
        keyring_core::Error::NoStorageAccess(_) | keyring_core::Error::PlatformFailure(_) => {
            SecretError::Unavailable(short(&e))
        }
        // The variants carrying data carry the secret's bytes: never format them.
        keyring_core::Error::BadEncoding(_) | keyring_core::Error::BadDataFormat(..) => {
            SecretError::Failed("the stored value is not readable text".into())
        }
        other => SecretError::Failed(short(&other)),
    }
}

impl SecretStore for Keyring {
    fn get(&self, name: &str) -> Result<Option<String>, SecretError> {
        match self.entry(name)?.get_password() {
            Ok(v) => Ok(Some(v)),
            Err(keyring_core::Error::NoEntry) => Ok(None),
            Err(e) => Err(map_error(e)),
        }
    }

    fn set(&self, name: &str, value: &str) -> Result<(), SecretError> {
        self.entry(name)?.set_password(value).map_err(map_error)
    }

    fn delete(&self, name: &str) -> Result<(), SecretError> {
        match self.entry(name)?.delete_credential() {
            Ok(()) | Err(keyring_core::Error::NoEntry) => Ok(()),
            Err(e) => Err(map_error(e)),
        }
    }
}

/// A store that refuses everything (stands in when no store could be built).
#[derive(Debug)]
struct FailingStore;

impl keyring_core::api::CredentialStoreApi for FailingStore {
    fn vendor(&self) -> String {
        "none".into()
    }
    fn id(&self) -> String {
        "none".into()
    }
    fn build(
        &self,
        _service: &str,
        _user: &str,
        _mods: Option<&HashMap<&str, &str>>,
    ) -> keyring_core::Result<keyring_core::Entry> {
        Err(keyring_core::Error::NotSupportedByStore(
            "no secret store".into(),
        ))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Entries kept in this process's memory only.
#[derive(Default)]
pub struct ProcessOnly {
    entries: Mutex<HashMap<String, String>>,
}

impl fmt::Debug for ProcessOnly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProcessOnly(<redacted>)")
    }
}

impl ProcessOnly {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl SecretStore for ProcessOnly {
    fn get(&self, name: &str) -> Result<Option<String>, SecretError> {
        Ok(self.map().get(name).cloned())
    }
    fn set(&self, name: &str, value: &str) -> Result<(), SecretError> {
        self.map().insert(name.to_owned(), value.to_owned());
        Ok(())
    }
    fn delete(&self, name: &str) -> Result<(), SecretError> {
        self.map().remove(name);
        Ok(())
    }
}

/// How the OS store is reached: run once, the first time it is needed.
type Connect = Box<dyn Fn() -> Result<Keyring, SecretError> + Send + Sync>;

/// The OS store when there is one, and this process's memory, behind one lookup. A value kept
/// for this process wins over one in the OS store (it is the newer choice).
pub struct Secrets {
    connect: Connect,
    keyring: OnceLock<Result<Keyring, SecretError>>,
    process: ProcessOnly,
    /// Opening the OS store, and every get, set and delete that reached it.
    accesses: AtomicUsize,
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keyring = match self.keyring.get() {
            None => "not opened",
            Some(Ok(_)) => "open",
            Some(Err(_)) => "unavailable",
        };
        f.debug_struct("Secrets")
            .field("keyring", &keyring)
            .finish()
    }
}

impl Secrets {
    /// Both stores; `keyring` is the outcome of connecting to the OS store, already made.
    pub fn new(keyring: Result<Keyring, SecretError>) -> Self {
        Self {
            connect: Box::new(|| Err(SecretError::Unavailable("not connected".into()))),
            keyring: OnceLock::from(keyring),
            process: ProcessOnly::default(),
            accesses: AtomicUsize::new(0),
        }
    }

    /// Both stores, the OS one opened by `connect` only when a value must be read from or
    /// kept in it, at most once (MCP-18: nothing stored, nothing opened). `connect` may block
    /// (D-Bus); so may every method that reaches the OS store.
    pub fn lazy(
        connect: impl Fn() -> Result<Keyring, SecretError> + Send + Sync + 'static,
    ) -> Self {
        Self {
            connect: Box::new(connect),
            keyring: OnceLock::new(),
            process: ProcessOnly::default(),
            accesses: AtomicUsize::new(0),
        }
    }

    /// The OS store, opened now if it was not yet.
    fn keyring(&self) -> &Result<Keyring, SecretError> {
        self.keyring.get_or_init(|| {
            self.accesses.fetch_add(1, Ordering::SeqCst);
            let opened = (self.connect)();
            if let Err(e) = &opened {
                tracing::info!(error = %e, "no OS secret store; values can be kept for this session only");
            }
            opened
        })
    }

    /// The OS store for one operation, counted.
    fn use_keyring(&self) -> Result<&Keyring, SecretError> {
        let k = self.keyring().as_ref().map_err(Clone::clone)?;
        self.accesses.fetch_add(1, Ordering::SeqCst);
        Ok(k)
    }

    /// How many times the OS store was opened or asked (get, set, delete) by this value.
    pub fn keyring_accesses(&self) -> usize {
        self.accesses.load(Ordering::SeqCst)
    }

    /// Why the OS store cannot be used, once that is known: after it was opened (a lazy store
    /// not needed yet has no problem to tell).
    pub fn keyring_problem(&self) -> Option<&SecretError> {
        self.keyring.get().and_then(|k| k.as_ref().err())
    }

    /// Opens the OS store if it is not open, and says whether it can be used: for a caller
    /// about to keep values there, which must refuse before it changes anything else.
    pub fn open_keyring(&self) -> Result<(), SecretError> {
        self.keyring().as_ref().map(|_| ()).map_err(Clone::clone)
    }

    /// The value of `name` and where it lives: this process first, then the OS store (opened
    /// for it). An unreachable OS store reads as "not there".
    pub fn get(&self, name: &str) -> Result<Option<(String, Storage)>, SecretError> {
        if let Some(v) = self.process.get(name)? {
            return Ok(Some((v, Storage::Process)));
        }
        self.get_in(name, Storage::Keyring)
            .map(|v| v.map(|v| (v, Storage::Keyring)))
    }

    /// The value of `name` in `storage` only: a value recorded as kept for this process is
    /// never looked for in the OS store. An unreachable OS store reads as "not there".
    pub fn get_in(&self, name: &str, storage: Storage) -> Result<Option<String>, SecretError> {
        match storage {
            Storage::Process => self.process.get(name),
            Storage::Keyring => match self.use_keyring() {
                Ok(k) => k.get(name),
                Err(_) => Ok(None),
            },
        }
    }

    /// Keeps `value` in `storage`, and removes `name` from the other place so exactly one
    /// value is live. Refused, changing nothing, when the OS store is asked for and unreachable.
    /// Kept for this process, an older copy in the OS store is removed when the store is open
    /// (every caller opens it when it records a value there, by reading it at start or keeping
    /// it); a store not opened yet is not opened for that.
    pub fn set(&self, name: &str, value: &str, storage: Storage) -> Result<(), SecretError> {
        match storage {
            Storage::Keyring => {
                self.use_keyring()?.set(name, value)?;
                self.process.delete(name)
            }
            Storage::Process => {
                self.process.set(name, value)?;
                if let Some(Ok(_)) = self.keyring.get()
                    && let Err(e) = self.delete_in(name, Storage::Keyring)
                {
                    tracing::warn!(error = %e, "an older keyring value stays in the OS store");
                }
                Ok(())
            }
        }
    }

    /// Removes `name` from both places.
    pub fn delete(&self, name: &str) -> Result<(), SecretError> {
        self.process.delete(name)?;
        self.delete_in(name, Storage::Keyring)
    }

    /// Removes `name` from `storage` only: a value recorded as kept for this process is
    /// removed without opening the OS store. An unreachable OS store has nothing to remove.
    pub fn delete_in(&self, name: &str, storage: Storage) -> Result<(), SecretError> {
        match storage {
            Storage::Process => self.process.delete(name),
            Storage::Keyring => match self.use_keyring() {
                Ok(k) => k.delete(name),
                Err(_) => Ok(()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_lives_in_exactly_one_place_and_says_where() {
        let s = Secrets::new(Ok(Keyring::mock()));
        assert!(s.get(MODEL_API_KEY).unwrap().is_none());
        s.set(MODEL_API_KEY, "sk-one", Storage::Keyring).unwrap();
        assert_eq!(
            s.get(MODEL_API_KEY).unwrap(),
            Some(("sk-one".into(), Storage::Keyring))
        );
        s.set(MODEL_API_KEY, "sk-two", Storage::Process).unwrap();
        assert_eq!(
            s.get(MODEL_API_KEY).unwrap(),
            Some(("sk-two".into(), Storage::Process))
        );
        // Moving back to the keyring drops the process copy.
        s.set(MODEL_API_KEY, "sk-three", Storage::Keyring).unwrap();
        assert_eq!(
            s.get(MODEL_API_KEY).unwrap(),
            Some(("sk-three".into(), Storage::Keyring))
        );
        s.delete(MODEL_API_KEY).unwrap();
        assert!(s.get(MODEL_API_KEY).unwrap().is_none());
        s.delete(MODEL_API_KEY).unwrap();
    }

    #[test]
    fn entries_are_separate_by_name() {
        let s = Secrets::new(Ok(Keyring::mock()));
        s.set("mcp/srv1/TOKEN", "a", Storage::Keyring).unwrap();
        s.set(MODEL_API_KEY, "b", Storage::Keyring).unwrap();
        assert_eq!(s.get("mcp/srv1/TOKEN").unwrap().unwrap().0, "a");
        assert_eq!(s.get(MODEL_API_KEY).unwrap().unwrap().0, "b");
    }

    #[test]
    fn without_an_os_store_the_keyring_is_refused_and_process_only_works() {
        let s = Secrets::new(Err(SecretError::Unavailable("no session bus".into())));
        let e = s
            .set(MODEL_API_KEY, "sk-secret-1", Storage::Keyring)
            .unwrap_err();
        assert!(matches!(e, SecretError::Unavailable(_)));
        assert!(e.to_string().contains("this Wisp session only"), "{e}");
        assert!(!e.to_string().contains("sk-secret-1"));
        assert!(s.get(MODEL_API_KEY).unwrap().is_none());
        s.set(MODEL_API_KEY, "sk-secret-1", Storage::Process)
            .unwrap();
        assert_eq!(
            s.get(MODEL_API_KEY).unwrap(),
            Some(("sk-secret-1".into(), Storage::Process))
        );
        assert!(!format!("{s:?}").contains("sk-secret"));
    }

    #[test]
    fn a_failing_os_store_is_reported_without_the_secret() {
        let k = Keyring::mock();
        k.set(MODEL_API_KEY, "sk-secret-2").unwrap();
        let entry = k.entry(MODEL_API_KEY).unwrap();
        let mock: &keyring_core::mock::Cred = entry.as_any().downcast_ref().unwrap();
        mock.set_error(keyring_core::Error::NoStorageAccess(Box::new(
            std::io::Error::other("locked"),
        )));
        let e = k.get(MODEL_API_KEY).unwrap_err();
        assert!(matches!(e, SecretError::Unavailable(_)), "{e}");
        assert!(!e.to_string().contains("sk-secret"));
        // The store's own reason is kept, so the person sees why.
        assert!(e.to_string().contains("locked"), "{e}");
    }

    /// A store's error text is kept one line long and at most 200 characters.
    #[test]
    fn a_store_error_is_kept_short_and_on_one_line() {
        let long = format!("line one\nline two\r\t{}", "x".repeat(500));
        let kept = short(&long);
        assert!(kept.starts_with("line oneline two"), "{kept}");
        assert!(!kept.chars().any(char::is_control), "{kept:?}");
        assert_eq!(kept.chars().count(), MAX_STORE_ERROR_CHARS);
    }

    /// None of the Debug forms shows a value; each names what it is.
    #[test]
    fn debug_forms_name_the_store_and_show_no_value() {
        let k = Keyring::mock();
        k.set(MODEL_API_KEY, "sk-secret-3").unwrap();
        assert_eq!(format!("{k:?}"), "Keyring");
        let p = ProcessOnly::default();
        p.set(MODEL_API_KEY, "sk-secret-3").unwrap();
        assert_eq!(format!("{p:?}"), "ProcessOnly(<redacted>)");
        let with = Secrets::new(Ok(k));
        assert_eq!(format!("{with:?}"), r#"Secrets { keyring: "open" }"#);
        let without = Secrets::new(Err(SecretError::Unavailable("no bus".into())));
        without
            .set(MODEL_API_KEY, "sk-secret-3", Storage::Process)
            .unwrap();
        assert_eq!(
            format!("{without:?}"),
            r#"Secrets { keyring: "unavailable" }"#
        );
        let lazy = Secrets::lazy(|| Ok(Keyring::mock()));
        assert_eq!(format!("{lazy:?}"), r#"Secrets { keyring: "not opened" }"#);
    }

    /// The reason the OS store cannot be used is kept for the settings page; none when it can.
    #[test]
    fn the_keyring_problem_is_told() {
        assert!(
            Secrets::new(Ok(Keyring::mock()))
                .keyring_problem()
                .is_none()
        );
        let s = Secrets::new(Err(SecretError::Unavailable("no session bus".into())));
        let problem = s.keyring_problem().unwrap();
        assert!(matches!(problem, SecretError::Unavailable(m) if m == "no session bus"));
    }

    /// A lazy store and how often `connect` ran.
    fn counted(
        connect: impl Fn() -> Result<Keyring, SecretError> + Send + Sync + 'static,
    ) -> (Secrets, Arc<AtomicUsize>) {
        let opened = Arc::new(AtomicUsize::new(0));
        let count = opened.clone();
        let s = Secrets::lazy(move || {
            count.fetch_add(1, Ordering::SeqCst);
            connect()
        });
        (s, opened)
    }

    /// MCP-18: the OS store is opened only by what needs a value there, once; values kept
    /// for this process are kept, read and removed without it.
    #[test]
    fn mcp_18_the_os_store_is_opened_only_when_a_value_needs_it() {
        let (s, opened) = counted(|| Ok(Keyring::mock()));
        assert!(s.keyring_problem().is_none());
        s.set("mcp/a/TOKEN", "v1", Storage::Process).unwrap();
        assert_eq!(
            s.get_in("mcp/a/TOKEN", Storage::Process)
                .unwrap()
                .as_deref(),
            Some("v1")
        );
        assert_eq!(
            s.get("mcp/a/TOKEN").unwrap(),
            Some(("v1".into(), Storage::Process))
        );
        s.delete_in("mcp/a/TOKEN", Storage::Process).unwrap();
        assert!(s.get_in("mcp/a/TOKEN", Storage::Process).unwrap().is_none());
        assert_eq!(
            (opened.load(Ordering::SeqCst), s.keyring_accesses()),
            (0, 0)
        );

        // Keeping a value there opens it: one open, one set.
        s.set(MODEL_API_KEY, "sk-one", Storage::Keyring).unwrap();
        assert_eq!(
            (opened.load(Ordering::SeqCst), s.keyring_accesses()),
            (1, 2)
        );
        assert_eq!(
            s.get_in(MODEL_API_KEY, Storage::Keyring)
                .unwrap()
                .as_deref(),
            Some("sk-one")
        );
        // Once open, a value moved to this process leaves the OS store.
        s.set(MODEL_API_KEY, "sk-two", Storage::Process).unwrap();
        assert!(s.get_in(MODEL_API_KEY, Storage::Keyring).unwrap().is_none());
        assert_eq!(opened.load(Ordering::SeqCst), 1, "opened once only");
        assert_eq!(s.keyring_accesses(), 5);

        // Reading a value recorded in the OS store opens it too.
        let (s, opened) = counted(|| Ok(Keyring::mock()));
        assert!(s.get_in(MODEL_API_KEY, Storage::Keyring).unwrap().is_none());
        assert_eq!(
            (opened.load(Ordering::SeqCst), s.keyring_accesses()),
            (1, 2)
        );
    }

    /// An OS store that cannot be opened is found out when first needed: keeping a value
    /// there is refused with the reason (never put in plain text or memory instead), reading
    /// finds nothing, and the problem is known from then on; it is not asked again.
    #[test]
    fn mcp_18_an_unreachable_store_is_told_when_first_needed() {
        let (s, opened) = counted(|| Err(SecretError::Unavailable("no session bus".into())));
        assert!(s.keyring_problem().is_none(), "told before it was needed");
        let e = s
            .set("mcp/a/TOKEN", "sk-secret-5", Storage::Keyring)
            .unwrap_err();
        assert!(matches!(e, SecretError::Unavailable(_)), "{e}");
        assert!(!e.to_string().contains("sk-secret"));
        assert!(s.get("mcp/a/TOKEN").unwrap().is_none());
        assert!(matches!(s.open_keyring(), Err(SecretError::Unavailable(_))));
        assert!(s.keyring_problem().is_some());
        s.delete("mcp/a/TOKEN").unwrap();
        assert_eq!(opened.load(Ordering::SeqCst), 1);
        assert_eq!(s.keyring_accesses(), 1, "only the open attempt");
    }

    /// The stand-in store refuses every entry (a Keyring built on it reads, keeps and removes
    /// nothing) and names itself "none".
    #[test]
    fn the_failing_store_refuses_everything() {
        use keyring_core::api::CredentialStoreApi;
        let store = FailingStore;
        assert_eq!((store.vendor(), store.id()), ("none".into(), "none".into()));
        assert!(store.as_any().downcast_ref::<FailingStore>().is_some());
        let k = Keyring {
            store: Arc::new(FailingStore),
        };
        for e in [
            k.get(MODEL_API_KEY).unwrap_err(),
            k.set(MODEL_API_KEY, "sk-secret-4").unwrap_err(),
            k.delete(MODEL_API_KEY).unwrap_err(),
        ] {
            assert!(
                matches!(&e, SecretError::Failed(m) if m.contains("no secret store")),
                "{e}"
            );
            assert!(!e.to_string().contains("sk-secret"));
        }
    }
}
