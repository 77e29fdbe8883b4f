//! Prints postflop-solver's action tree for a spot, one line per node, so that pokerai's tree
//! (`pokerai.solvers.postflop.tree`) can be compared with it line by line.
//!
//! Usage:
//!   spot_tree STREET POT STACK BETS RAISES [BETS RAISES ...] [--add X] [--force X] [--merge X]
//!
//! STREET is flop, turn or river. One BETS RAISES pair applies to every street and both players;
//! three pairs are per street (flop, turn, river) for both players; six pairs are per street and
//! player (flop OOP, flop IP, turn OOP, turn IP, river OOP, river IP). --add, --force and --merge
//! are the all-in and merging thresholds (defaults 1.5, 0.15, 0.1).
//!
//! Output, tab-separated, in depth-first order (actions in the tree's order):
//!   PATH  KIND  PLAYER  COMMITTED_OOP  COMMITTED_IP
//! PATH is `Root` then `/`-separated actions as Rust's `Debug` prints them (`Check`, `Bet(120)`,
//! `Raise(300)`, `AllIn(900)`) and `Chance` where a street ends. KIND is player, chance, fold or
//! showdown; PLAYER is the player to act (player), the player who folded (fold), else -1. The last
//! line is `# counts player=N chance=N terminal=N`.
//!
//! The public `ActionTree` API skips the chance nodes that follow an all-in call before the river
//! (postflop-solver builds one chance node per street left, then the showdown, and reports the
//! first of them as terminal); this program prints them as built, from the street the call is on.

use postflop_solver::*;
use std::process::exit;

struct Walk {
    lines: Vec<String>,
    player_nodes: u64,
    chance_nodes: u64,
    terminal_nodes: u64,
}

fn fail(message: &str) -> ! {
    eprintln!("spot_tree: {message}");
    exit(2);
}

fn parse_number<T: std::str::FromStr>(text: &str, what: &str) -> T {
    text.parse::<T>()
        .unwrap_or_else(|_| fail(&format!("{what} must be a number, got {text:?}")))
}

impl Walk {
    fn emit(&mut self, path: &[String], kind: &str, player: i32, committed: [i32; 2]) {
        self.lines.push(format!(
            "{}\t{kind}\t{player}\t{}\t{}",
            path.join("/"),
            committed[0],
            committed[1]
        ));
    }

    /// The node reached by `last`, played by `actor` on `street` (0 flop, 1 turn, 2 river).
    fn after_action(
        &mut self,
        tree: &mut ActionTree,
        path: &mut Vec<String>,
        street: usize,
        actor: i32,
        last: Action,
    ) {
        let committed = tree.total_bet_amount();
        if tree.is_terminal_node() {
            if last == Action::Fold {
                self.emit(path, "fold", actor, committed);
            } else {
                // a call or check that closes the river, or an all-in call on an earlier street
                let pushed = 2 - street;
                for _ in 0..pushed {
                    self.emit(path, "chance", -1, committed);
                    self.chance_nodes += 1;
                    path.push("Chance".to_string());
                }
                self.emit(path, "showdown", -1, committed);
                path.truncate(path.len() - pushed);
            }
            self.terminal_nodes += 1;
        } else if tree.is_chance_node() {
            self.emit(path, "chance", -1, committed);
            self.chance_nodes += 1;
            path.push("Chance".to_string());
            self.player_node(tree, path, street + 1, 0);
            path.pop();
        } else {
            self.player_node(tree, path, street, 1 - actor);
        }
    }

    fn player_node(
        &mut self,
        tree: &mut ActionTree,
        path: &mut Vec<String>,
        street: usize,
        player: i32,
    ) {
        self.emit(path, "player", player, tree.total_bet_amount());
        self.player_nodes += 1;
        for action in tree.available_actions().to_vec() {
            tree.play(action).unwrap();
            path.push(format!("{action:?}"));
            self.after_action(tree, path, street, player, action);
            path.pop();
            tree.undo().unwrap();
        }
    }
}

fn main() {
    let mut positional = Vec::new();
    let (mut add, mut force, mut merge) = (1.5f64, 0.15f64, 0.1f64);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> f64 {
            let text = args
                .next()
                .unwrap_or_else(|| fail(&format!("{name} needs a value")));
            parse_number(&text, name)
        };
        match arg.as_str() {
            "--add" => add = value("--add"),
            "--force" => force = value("--force"),
            "--merge" => merge = value("--merge"),
            _ => positional.push(arg),
        }
    }
    if positional.len() < 5 {
        fail("usage: spot_tree STREET POT STACK BETS RAISES [BETS RAISES ...] [--add X] [--force X] [--merge X]");
    }
    let (street, initial_state) = match positional[0].as_str() {
        "flop" => (0, BoardState::Flop),
        "turn" => (1, BoardState::Turn),
        "river" => (2, BoardState::River),
        other => fail(&format!(
            "street must be flop, turn or river, got {other:?}"
        )),
    };
    let pot: i32 = parse_number(&positional[1], "POT");
    let stack: i32 = parse_number(&positional[2], "STACK");
    let pairs: Vec<BetSizeOptions> = positional[3..]
        .chunks(2)
        .map(|pair| {
            if pair.len() != 2 {
                fail("bet and raise sizes come in pairs");
            }
            BetSizeOptions::try_from((pair[0].as_str(), pair[1].as_str()))
                .unwrap_or_else(|e| fail(&e))
        })
        .collect();
    // sizes[street][player]
    let sizes: Vec<[BetSizeOptions; 2]> = match pairs.len() {
        1 => (0..3)
            .map(|_| [pairs[0].clone(), pairs[0].clone()])
            .collect(),
        3 => (0..3)
            .map(|s| [pairs[s].clone(), pairs[s].clone()])
            .collect(),
        6 => (0..3)
            .map(|s| [pairs[2 * s].clone(), pairs[2 * s + 1].clone()])
            .collect(),
        n => fail(&format!(
            "expected 1, 3 or 6 pairs of bet and raise sizes, got {n}"
        )),
    };
    let config = TreeConfig {
        initial_state,
        starting_pot: pot,
        effective_stack: stack,
        rake_rate: 0.0,
        rake_cap: 0.0,
        flop_bet_sizes: sizes[0].clone(),
        turn_bet_sizes: sizes[1].clone(),
        river_bet_sizes: sizes[2].clone(),
        turn_donk_sizes: None,
        river_donk_sizes: None,
        add_allin_threshold: add,
        force_allin_threshold: force,
        merging_threshold: merge,
    };
    let mut tree = ActionTree::new(config).unwrap_or_else(|e| fail(&e));
    let mut walk = Walk {
        lines: Vec::new(),
        player_nodes: 0,
        chance_nodes: 0,
        terminal_nodes: 0,
    };
    let mut path = vec!["Root".to_string()];
    walk.player_node(&mut tree, &mut path, street, 0);
    let mut out = walk.lines.join("\n");
    out.push_str(&format!(
        "\n# counts player={} chance={} terminal={}\n",
        walk.player_nodes, walk.chance_nodes, walk.terminal_nodes
    ));
    print!("{out}");
}
