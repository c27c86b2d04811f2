//! The Host as the child subreaper of the servers it starts (Linux): a server's descendants
//! that left its process group (`setsid`, a double fork) end with it and are reaped, and no
//! orphan handed to the Host is left a zombie, while every pid that tokio or std spawned
//! stays theirs to wait for. Elsewhere every function here is a no-op (on Windows a server's
//! Job Object already holds all it starts).
//!
//! With `PR_SET_CHILD_SUBREAPER` an orphan anywhere below the Host becomes the Host's child
//! instead of init's. The Host's children are then of two kinds, told apart from
//! `/proc/PID/stat` alone (nothing here ever waits for "any child"):
//! - *owned*: forked by the Host (tokio, std); their parent has been the Host since birth.
//!   Only their owner waits for them.
//! - *adopted*: proven by one of (1) the same pid and start time was seen earlier below a
//!   server's root, with a parent that was not the Host; (2) its session is neither the
//!   Host's nor its own (only `setsid` changes a session, and it makes the caller the leader:
//!   a process the Host forked can never be in a third session); (3) its process group is
//!   neither the Host's nor its own (the Host starts children in its group or in a group of
//!   their own). Adopted zombies are reaped with `waitid(P_PID, pid)`, one by one.
//!
//! Which server an adopted process belongs to: the pid and start time recorded below that
//! server's root (recorded at every sweep while it runs and when its stop begins), its
//! process group or session being one seen in that server's tree, and, for a process in a
//! session of its own that none of that identifies (a double fork whose intermediate exited
//! before any sweep saw it), start time: it belongs to the servers that were running when it
//! started, and ends when the last of them stops. That last rule can take a detached process
//! of another origin started while a server ran (Chromium's crash handler double-forks too);
//! it ends no earlier than that server.

/// Makes this process the child subreaper of everything it starts, and keeps reaping the
/// orphans it adopts (on every SIGCHLD and once a second while a server runs). Call once,
/// inside a tokio runtime, before starting servers: `wisp serve` does at its start.
pub fn start() -> std::io::Result<()> {
    imp::start()
}

#[cfg(unix)]
pub(crate) use imp::Tree;

#[cfg(target_os = "linux")]
mod imp {
    use std::collections::{HashMap, HashSet};
    use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};
    use std::time::{Duration, Instant};

    use rustix::process::{
        Pid, Signal, WaitId, WaitIdOptions, getpid, kill_process, set_child_subreaper, waitid,
    };

    /// How often the trees of running servers are recorded when no SIGCHLD comes.
    const SWEEP_EVERY: Duration = Duration::from_secs(1);
    /// How long a stop waits for the descendants it killed to be reaped.
    const REAP_WAIT: Duration = Duration::from_secs(2);
    /// Kill rounds of one stop: a process forked while the previous round ran is caught by
    /// the next.
    const KILL_ROUNDS: usize = 8;

    pub(super) fn start() -> std::io::Result<()> {
        set_child_subreaper(Some(getpid()))?;
        let mut sigchld = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::child())?;
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(SWEEP_EVERY);
            loop {
                tokio::select! {
                    got = sigchld.recv() => {
                        if got.is_none() {
                            break;
                        }
                    }
                    _ = tick.tick() => {
                        if registry().trees.is_empty() {
                            continue;
                        }
                    }
                }
                sweep();
            }
        });
        Ok(())
    }

    /// One process as `/proc/PID/stat` shows it.
    #[derive(Debug, Clone, Copy)]
    struct Stat {
        pid: i32,
        ppid: i32,
        pgid: i32,
        sid: i32,
        // Clock ticks after boot: with the pid, who a process is (pids are reused).
        start: u64,
        zombie: bool,
    }

    fn read_stat(pid: i32) -> Option<Stat> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name may hold spaces and parentheses: fields start after the last ')'.
        let rest = text.get(text.rfind(')')? + 1..)?;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let num = |i: usize| fields.get(i).and_then(|f| f.parse::<i64>().ok());
        Some(Stat {
            pid,
            zombie: matches!(fields.first(), Some(&"Z") | Some(&"X")),
            ppid: i32::try_from(num(1)?).ok()?,
            pgid: i32::try_from(num(2)?).ok()?,
            sid: i32::try_from(num(3)?).ok()?,
            start: u64::try_from(num(19)?).ok()?,
        })
    }

    /// Every process this user can see, by pid.
    struct Snapshot {
        procs: HashMap<i32, Stat>,
        children: HashMap<i32, Vec<i32>>,
    }

    impl Snapshot {
        fn take() -> Snapshot {
            let mut procs = HashMap::new();
            if let Ok(dir) = std::fs::read_dir("/proc") {
                for entry in dir.flatten() {
                    let pid = entry.file_name().to_str().and_then(|n| n.parse().ok());
                    if let Some(stat) = pid.and_then(read_stat) {
                        procs.insert(stat.pid, stat);
                    }
                }
            }
            let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
            for s in procs.values() {
                children.entry(s.ppid).or_default().push(s.pid);
            }
            Snapshot { procs, children }
        }

        fn is(&self, pid: i32, start: u64) -> bool {
            self.procs.get(&pid).is_some_and(|s| s.start == start)
        }

        /// Everything below `roots` (the roots not included).
        fn below(&self, roots: impl IntoIterator<Item = i32>) -> Vec<i32> {
            let mut out = Vec::new();
            let mut todo: Vec<i32> = roots.into_iter().collect();
            let mut visited: HashSet<i32> = todo.iter().copied().collect();
            while let Some(pid) = todo.pop() {
                for &child in self.children.get(&pid).into_iter().flatten() {
                    if visited.insert(child) {
                        out.push(child);
                        todo.push(child);
                    }
                }
            }
            out
        }
    }

    /// The Host's own ids.
    #[derive(Clone, Copy)]
    struct Me {
        pid: i32,
        sid: i32,
        pgid: i32,
    }

    /// Read from `/proc` as every other process is, not with `getsid`/`getpgid`: in a pid
    /// namespace whose session leader is outside (a container, `unshare --pid`) the kernel
    /// reports session and group 0, which rustix's `Pid` cannot hold (it asserts), and the
    /// snapshot's processes show the same 0 for what they share with the Host.
    fn me() -> Me {
        let pid = getpid().as_raw_nonzero().get();
        match read_stat(pid) {
            Some(s) => Me {
                pid,
                sid: s.sid,
                pgid: s.pgid,
            },
            None => Me {
                pid,
                sid: pid,
                pgid: pid,
            },
        }
    }

    /// What is known of one server's tree.
    #[derive(Debug)]
    struct TreeState {
        root: i32,
        root_start: u64,
        // Descendants seen below the root (pid → start time), never the Host's own children.
        seen: HashMap<i32, u64>,
        // Process groups and sessions seen in the tree other than the Host's.
        groups: HashSet<i32>,
        // The stop began, or the root exited: the tree no longer claims newcomers.
        ending: bool,
    }

    #[derive(Default)]
    struct Registry {
        trees: HashMap<u64, TreeState>,
        next: u64,
        // Killed descendants (pid → start time) not yet reaped, still provably not owned.
        killed: HashMap<i32, u64>,
    }

    static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(Mutex::default);

    fn registry() -> MutexGuard<'static, Registry> {
        REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
    }

    impl Registry {
        fn roots(&self) -> HashSet<i32> {
            self.trees.values().map(|t| t.root).collect()
        }

        /// Whether the Host's child `s` was adopted (see the module's rules); `false` for
        /// anything that may be owned by tokio or std.
        fn adopted(&self, s: &Stat, me: Me, roots: &HashSet<i32>) -> bool {
            if s.ppid != me.pid || roots.contains(&s.pid) {
                return false;
            }
            let seen = self.killed.get(&s.pid) == Some(&s.start)
                || self
                    .trees
                    .values()
                    .any(|t| t.seen.get(&s.pid) == Some(&s.start));
            seen || (s.sid != me.sid && s.sid != s.pid) || (s.pgid != me.pgid && s.pgid != s.pid)
        }

        /// Records what is below each running root.
        fn record(&mut self, snap: &Snapshot, me: Me) {
            for tree in self.trees.values_mut() {
                if !snap.is(tree.root, tree.root_start) {
                    continue;
                }
                for pid in snap.below([tree.root]) {
                    if let Some(s) = snap.procs.get(&pid) {
                        tree.seen.insert(pid, s.start);
                        note_groups(tree, s, me);
                    }
                }
            }
        }

        /// The live processes of tree `key`: its descendants, the adopted ones it can be
        /// told by, and everything below those. Never a server's root, never owned.
        fn victims(&self, key: u64, snap: &Snapshot, me: Me) -> Vec<i32> {
            let Some(tree) = self.trees.get(&key) else {
                return Vec::new();
            };
            let roots = self.roots();
            let mut found: HashSet<i32> = HashSet::new();
            if snap.is(tree.root, tree.root_start) {
                found.extend(snap.below([tree.root]));
            }
            found.extend(
                tree.seen
                    .iter()
                    .filter(|(pid, start)| snap.is(**pid, **start))
                    .map(|(pid, _)| *pid),
            );
            for s in snap.procs.values() {
                if !self.adopted(s, me, &roots) {
                    continue;
                }
                let exact = |t: &TreeState| {
                    t.seen.get(&s.pid) == Some(&s.start)
                        || s.pgid == t.root
                        || t.groups.contains(&s.pgid)
                        || t.groups.contains(&s.sid)
                };
                if exact(tree) {
                    found.insert(s.pid);
                    continue;
                }
                // In a session of its own and no tree can be told by it: the servers that
                // were running when it started share it, and the last of them to stop ends it.
                let claimed = self.trees.iter().any(|(k, t)| {
                    *k != key && (exact(t) || (!t.ending && t.root_start <= s.start))
                });
                if s.sid != me.sid && tree.root_start <= s.start && !claimed {
                    found.insert(s.pid);
                }
            }
            let below = snap.below(found.iter().copied());
            found.extend(below);
            found.retain(|pid| *pid != me.pid && !roots.contains(pid));
            found
                .into_iter()
                .filter(|pid| snap.procs.get(pid).is_some_and(|s| !s.zombie))
                .collect()
        }
    }

    fn note_groups(tree: &mut TreeState, s: &Stat, me: Me) {
        if s.pgid != me.pgid {
            tree.groups.insert(s.pgid);
        }
        if s.sid != me.sid {
            tree.groups.insert(s.sid);
        }
    }

    /// Records the running trees, ends the trees whose root exited on its own (a crash
    /// leaves no daemon either) and reaps adopted zombies.
    fn sweep() {
        let me = me();
        let snap = Snapshot::take();
        let mut reg = registry();
        reg.record(&snap, me);
        let crashed: Vec<u64> = reg
            .trees
            .iter()
            .filter(|(_, t)| {
                !t.ending
                    && snap
                        .procs
                        .get(&t.root)
                        .is_none_or(|s| s.zombie || s.start != t.root_start)
            })
            .map(|(k, _)| *k)
            .collect();
        for key in crashed {
            kill_rounds(&mut reg, key, me, Signal::KILL);
            if let Some(t) = reg.trees.get_mut(&key) {
                t.ending = true;
            }
        }
        reap_adopted(&mut reg, &Snapshot::take(), me);
    }

    /// Reaps every adopted zombie, each by its own pid.
    fn reap_adopted(reg: &mut Registry, snap: &Snapshot, me: Me) {
        let roots = reg.roots();
        for s in snap.procs.values() {
            if s.zombie && reg.adopted(s, me, &roots) {
                if let Some(pid) = Pid::from_raw(s.pid) {
                    let _ = waitid(
                        WaitId::Pid(pid),
                        WaitIdOptions::EXITED | WaitIdOptions::NOHANG,
                    );
                }
                reg.killed.remove(&s.pid);
            }
        }
        reg.killed.retain(|pid, start| snap.is(*pid, *start));
    }

    /// Signals tree `key`'s victims until no new one appears; `KILL` ones are remembered
    /// until reaped. Returns the pids signalled.
    fn kill_rounds(reg: &mut Registry, key: u64, me: Me, signal: Signal) -> Vec<i32> {
        let mut done: HashSet<i32> = HashSet::new();
        for _ in 0..KILL_ROUNDS {
            let snap = Snapshot::take();
            reg.record(&snap, me);
            let new: Vec<i32> = reg
                .victims(key, &snap, me)
                .into_iter()
                .filter(|pid| signal == Signal::KILL || !done.contains(pid))
                .collect();
            if new.is_empty() {
                break;
            }
            for pid in new {
                let Some(s) = snap.procs.get(&pid) else {
                    continue;
                };
                if signal == Signal::KILL {
                    reg.killed.insert(pid, s.start);
                }
                if let Some(p) = Pid::from_raw(pid) {
                    let _ = kill_process(p, signal);
                }
                done.insert(pid);
            }
            if signal != Signal::KILL {
                break;
            }
        }
        done.into_iter().collect()
    }

    /// One server's tree, from its spawn to its stop.
    #[derive(Debug)]
    pub(crate) struct Tree {
        key: Option<u64>,
    }

    impl Tree {
        /// Starts tracking the tree of the server whose root is `pid`.
        pub(crate) fn register(pid: Option<u32>) -> Tree {
            let Some(root) = pid.and_then(|p| i32::try_from(p).ok()) else {
                return Tree { key: None };
            };
            let root_start = read_stat(root).map_or(0, |s| s.start);
            let mut reg = registry();
            reg.next += 1;
            let key = reg.next;
            reg.trees.insert(
                key,
                TreeState {
                    root,
                    root_start,
                    seen: HashMap::new(),
                    groups: HashSet::new(),
                    ending: false,
                },
            );
            Tree { key: Some(key) }
        }

        /// Records the tree as it is now, while the parents in it still live.
        pub(crate) fn record(&self) {
            if self.key.is_some() {
                let me = me();
                let snap = Snapshot::take();
                registry().record(&snap, me);
            }
        }

        /// Sends `signal` to what of the tree left the server's process group.
        pub(crate) fn signal(&self, signal: Signal) {
            if let Some(key) = self.key {
                kill_rounds(&mut registry(), key, me(), signal);
            }
        }

        /// Kills every remaining process of the tree and stops tracking it (no wait).
        fn end_now(&mut self) -> Vec<(i32, u64)> {
            let Some(key) = self.key.take() else {
                return Vec::new();
            };
            let mut reg = registry();
            if let Some(t) = reg.trees.get_mut(&key) {
                t.ending = true;
            }
            let me = me();
            kill_rounds(&mut reg, key, me, Signal::KILL);
            reg.trees.remove(&key);
            reg.killed.iter().map(|(p, s)| (*p, *s)).collect()
        }

        /// Kills every remaining process of the tree, then waits (bounded) until each one
        /// the Host adopted is reaped.
        pub(crate) async fn end(&mut self) {
            let killed = self.end_now();
            let until = Instant::now() + REAP_WAIT;
            let me = me();
            loop {
                let snap = Snapshot::take();
                reap_adopted(&mut registry(), &snap, me);
                let pending = killed.iter().any(|(pid, start)| snap.is(*pid, *start));
                if !pending || Instant::now() >= until {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }

    impl Drop for Tree {
        // A process dropped without `stop` still takes its whole tree; the sweep reaps.
        fn drop(&mut self) {
            self.end_now();
        }
    }
}

/// Windows: a server's Job Object holds everything it starts (`process.rs`); nothing to reap.
#[cfg(windows)]
mod imp {
    pub(super) fn start() -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
mod imp {
    pub(super) fn start() -> std::io::Result<()> {
        Ok(())
    }

    /// Nothing is tracked outside Linux: a stop reaches the server's process group only.
    #[derive(Debug)]
    pub(crate) struct Tree;

    impl Tree {
        pub(crate) fn register(_pid: Option<u32>) -> Tree {
            Tree
        }
        pub(crate) fn record(&self) {}
        pub(crate) fn signal(&self, _signal: rustix::process::Signal) {}
        pub(crate) async fn end(&mut self) {}
    }
}
