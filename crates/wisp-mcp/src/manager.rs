//! The set of activated servers and the limits over them (MCP-28): at most 16 servers and 96
//! active tools in all. Going over is a clear error for that server, never a silent drop.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::McpError;
use crate::connection::{Connection, ServerSpec, ToolList};
use crate::limits::{MAX_ACTIVE_TOOLS, MAX_SERVERS};

/// Tool counts per connection (keyed by [`Connection::budget_key`]), shared with the
/// connections so a refresh that would go over the total is refused there too.
#[derive(Debug, Default)]
pub(crate) struct Budget {
    counts: Mutex<HashMap<String, usize>>,
}

impl Budget {
    pub(crate) fn claim(&self, server: &str, tools: usize) -> Result<(), McpError> {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let others: usize = counts
            .iter()
            .filter(|(id, _)| id.as_str() != server)
            .map(|(_, n)| n)
            .sum();
        if others + tools > MAX_ACTIVE_TOOLS {
            return Err(McpError::Limit(format!(
                "this server's {tools} tools and the {others} already active would exceed \
                 the limit of {MAX_ACTIVE_TOOLS} active MCP tools; disable another server first"
            )));
        }
        counts.insert(server.to_owned(), tools);
        Ok(())
    }

    pub(crate) fn release(&self, server: &str) {
        self.counts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(server);
    }
}

/// The activated servers, by id. Cheap to clone. No lock is held while a server starts, so
/// disabling one server never waits for another's discovery.
#[derive(Clone, Default)]
pub struct Manager {
    connections: Arc<tokio::sync::Mutex<HashMap<String, Connection>>>,
    budget: Arc<Budget>,
    // Bumped by every activate and deactivate of a server: an activation that finds its
    // generation moved on was overtaken (disabled or re-activated while starting) and stops
    // its own process instead of going live.
    generations: Arc<Mutex<HashMap<String, u64>>>,
}

impl Manager {
    /// A manager with nothing active.
    pub fn new() -> Self {
        Self::default()
    }

    fn bump(&self, server_id: &str) -> u64 {
        let mut g = self.generations.lock().unwrap_or_else(|e| e.into_inner());
        let n = g.entry(server_id.to_owned()).or_insert(0);
        *n += 1;
        *n
    }

    fn generation(&self, server_id: &str) -> u64 {
        let g = self.generations.lock().unwrap_or_else(|e| e.into_inner());
        g.get(server_id).copied().unwrap_or(0)
    }

    /// Trusts and activates a server (stopping its old connection first): spawn, handshake,
    /// discovery, limits. Answers when discovery finished or failed.
    pub async fn activate(&self, spec: &ServerSpec) -> Result<ToolList, McpError> {
        let generation = self.bump(&spec.id);
        let old = self.connections.lock().await.remove(&spec.id);
        if let Some(old) = old {
            old.stop().await;
        }
        self.check_room().await?;
        let connection = Connection::connect_in(spec, Some(self.budget.clone())).await?;
        let mut connections = self.connections.lock().await;
        let refused = if self.generation(&spec.id) != generation {
            Some(McpError::Cancelled)
        } else if open_count(&mut connections) >= MAX_SERVERS {
            Some(too_many())
        } else {
            self.budget
                .claim(connection.budget_key(), connection.tools().tools.len())
                .err()
        };
        if let Some(e) = refused {
            drop(connections);
            connection.stop().await;
            return Err(e);
        }
        let tools = connection.tools();
        connections.insert(spec.id.clone(), connection);
        Ok(tools)
    }

    async fn check_room(&self) -> Result<(), McpError> {
        if open_count(&mut *self.connections.lock().await) >= MAX_SERVERS {
            return Err(too_many());
        }
        Ok(())
    }

    /// The connection of an active server.
    pub async fn get(&self, server_id: &str) -> Option<Connection> {
        self.connections.lock().await.get(server_id).cloned()
    }

    /// Stops a server and withdraws its tools at once (edit, disable, delete: MCP-08).
    pub async fn deactivate(&self, server_id: &str) {
        self.bump(server_id);
        let removed = self.connections.lock().await.remove(server_id);
        if let Some(connection) = removed {
            connection.stop().await;
        }
    }

    /// Every open connection's tools, by server id: what a run's snapshot is made of.
    pub async fn active_tools(&self) -> Vec<(String, ToolList)> {
        let connections = self.connections.lock().await;
        let mut out: Vec<(String, ToolList)> = connections
            .iter()
            .filter(|(_, c)| c.is_open())
            .map(|(id, c)| (id.clone(), c.tools()))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Stops every server (Host shutdown).
    pub async fn stop_all(&self) {
        let all: Vec<Connection> = self
            .connections
            .lock()
            .await
            .drain()
            .map(|(_, c)| c)
            .collect();
        for connection in all {
            connection.stop().await;
        }
    }
}

fn open_count(connections: &mut HashMap<String, Connection>) -> usize {
    connections.retain(|_, c| c.is_open());
    connections.len()
}

fn too_many() -> McpError {
    McpError::Limit(format!(
        "{MAX_SERVERS} servers are already active; the limit is {MAX_SERVERS}"
    ))
}
