//! Circles in a directed graph: its strongly connected components
//! (Tarjan), each named by one shortest circle through it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A graph as its edges, node -> the nodes it points to.
pub type Graph<N> = BTreeMap<N, BTreeSet<N>>;

/// Each component of more than one node (every node in it reaches every
/// other), with a shortest circle through its least node: `[a, b, .., a]`.
pub fn circles<N: Ord + Clone>(graph: &Graph<N>) -> Vec<(BTreeSet<N>, Vec<N>)> {
    components(graph)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let circle = shortest_circle(graph, &c);
            (c, circle)
        })
        .collect()
}

struct Tarjan<'g, N> {
    graph: &'g Graph<N>,
    index: BTreeMap<N, usize>,
    low: BTreeMap<N, usize>,
    stack: Vec<N>,
    on_stack: BTreeSet<N>,
    out: Vec<BTreeSet<N>>,
}

impl<N: Ord + Clone> Tarjan<'_, N> {
    fn visit(&mut self, v: &N) {
        let i = self.index.len();
        self.index.insert(v.clone(), i);
        self.low.insert(v.clone(), i);
        self.stack.push(v.clone());
        self.on_stack.insert(v.clone());
        for w in self.graph.get(v).into_iter().flatten() {
            if !self.index.contains_key(w) {
                self.visit(w);
                let lw = self.low[w];
                let lv = self.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if self.on_stack.contains(w) {
                let iw = self.index[w];
                let lv = self.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if self.low[v] == self.index[v] {
            let mut c = BTreeSet::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack.remove(&w);
                let done = w == *v;
                c.insert(w);
                if done {
                    break;
                }
            }
            self.out.push(c);
        }
    }
}

fn components<N: Ord + Clone>(graph: &Graph<N>) -> Vec<BTreeSet<N>> {
    let mut t = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.out
}

/// A shortest circle through the component's least node, within it.
fn shortest_circle<N: Ord + Clone>(graph: &Graph<N>, component: &BTreeSet<N>) -> Vec<N> {
    let start = component.first().expect("a component has a node").clone();
    let mut came_from: BTreeMap<N, N> = BTreeMap::new();
    let mut queue = VecDeque::from([start.clone()]);
    while let Some(v) = queue.pop_front() {
        for w in graph.get(&v).into_iter().flatten() {
            if !component.contains(w) {
                continue;
            }
            if *w == start {
                let mut path = vec![start.clone(), v.clone()];
                let mut at = v.clone();
                while let Some(p) = came_from.get(&at) {
                    path.push(p.clone());
                    at = p.clone();
                }
                path.reverse();
                return path;
            }
            if *w != start && !came_from.contains_key(w) {
                came_from.insert(w.clone(), v.clone());
                queue.push_back(w.clone());
            }
        }
    }
    unreachable!("a component of more than one node holds a circle")
}

#[test]
fn a_ring_is_found_and_a_chain_is_not() {
    let g: Graph<u8> = [
        (1, [2].into()),
        (2, [3].into()),
        (3, [1].into()),
        (4, [1].into()),
    ]
    .into();
    assert_eq!(circles(&g), vec![([1, 2, 3].into(), vec![1, 2, 3, 1])]);
    let chain: Graph<u8> = [(1, [2].into()), (2, [3].into())].into();
    assert!(circles(&chain).is_empty());
}
