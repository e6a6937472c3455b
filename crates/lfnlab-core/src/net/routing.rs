//! Static shortest-path routes (issue 2: router nodes), by hop count with ties
//! broken by the lower link index, so routes never depend on hash order.

use std::collections::VecDeque;

use super::packet::NodeId;

/// `next_port[node][dst]`: index into that node's port list, or `NO_ROUTE`.
pub struct RouteTable {
    n: usize,
    next_port: Vec<u32>,
}

pub const NO_ROUTE: u32 = u32::MAX;

impl RouteTable {
    /// `adj[node]` = list of (neighbour, port index at node), in link order.
    /// `forwards[node]` = may traffic pass through this node (hosts do not forward).
    pub fn build(adj: &[Vec<(NodeId, u32)>], forwards: &[bool]) -> RouteTable {
        let n = adj.len();
        let mut next_port = vec![NO_ROUTE; n * n];
        // BFS from every destination over reversed edges (links are full duplex,
        // so the graph is symmetric): dist[v] = hops from v to dst.
        for dst in 0..n {
            let mut dist = vec![u32::MAX; n];
            dist[dst] = 0;
            let mut q = VecDeque::from([dst]);
            while let Some(v) = q.pop_front() {
                // Only the destination itself or forwarding nodes extend paths.
                if v != dst && !forwards[v] {
                    continue;
                }
                for &(u, _) in &adj[v] {
                    let u = u as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        q.push_back(u);
                    }
                }
            }
            for v in 0..n {
                if v == dst || dist[v] == u32::MAX {
                    continue;
                }
                // First neighbour (in link order) one hop closer that may forward or is dst.
                for &(u, port) in &adj[v] {
                    let u = u as usize;
                    if dist[u] != u32::MAX && dist[u] + 1 == dist[v] && (u == dst || forwards[u]) {
                        next_port[v * n + dst] = port;
                        break;
                    }
                }
            }
        }
        RouteTable { n, next_port }
    }

    #[inline]
    pub fn port(&self, at: NodeId, dst: NodeId) -> u32 {
        self.next_port[at as usize * self.n + dst as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_do_not_forward() {
        // h0 - h1 - h2 (h1 a host): no route h0 -> h2.
        let adj = vec![vec![(1, 0)], vec![(0, 0), (2, 1)], vec![(1, 0)]];
        let rt = RouteTable::build(&adj, &[false, false, false]);
        assert_eq!(rt.port(0, 2), NO_ROUTE);
        assert_eq!(rt.port(0, 1), 0);
        // With a router in the middle the route exists.
        let rt = RouteTable::build(&adj, &[false, true, false]);
        assert_eq!(rt.port(0, 2), 0);
        assert_eq!(rt.port(1, 2), 1);
    }
}
