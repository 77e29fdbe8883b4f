//! Solves one postflop spot with postflop-solver and prints one JSON line of timings, so that
//! `benchmarks/bench_spot.py` can set it beside `pokerai spot` in the same run.
//!
//! Built as an example of postflop-solver by `tools/build_postflop_solver.sh BUILD_DIR THIS_FILE`:
//!
//!     postflop_solver_spot --board Td9d6hQc --oop "66+,A8s+" --ip "QQ-22,AQs-A2s" --pot 200 \
//!         --stack 900 --bets "60%,e,a" --raises 2.5x --threads 2 --targets 0.5,0.3 --max-iterations 1000
//!
//! The same bet and raise strings on every street for both players, no donk sizes, no rake, the
//! all-in thresholds 1.5 (add) and 0.15 (force) and merging 0.1. Discounted CFR steps are run here
//! one at a time; the exploitability is computed before the first, every 10 iterations and at the
//! last one, as postflop-solver's own `solve` does, and its time counts. Targets and exploitabilities are in % of the starting pot. Prints:
//! `{"targets": [{"target_pct", "iterations", "seconds"}, ...], "iterations", "seconds",
//! "build_seconds", "exploitability_pct", "memory_bytes", "oop_ev", "ip_ev", "num_nodes",
//! "player_nodes", "chance_nodes", "terminal_nodes", "threads"}`; a target not reached has null
//! iterations and seconds. `oop_ev` is OOP's expected share of the pot at the root in chips.

use postflop_solver::*;
use std::process::exit;
use std::time::Instant;

struct Options {
    board: String,
    oop: String,
    ip: String,
    pot: i32,
    stack: i32,
    bets: String,
    raises: String,
    threads: usize,
    targets: Vec<f64>,
    max_iterations: u32,
}

fn fail(message: &str) -> ! {
    eprintln!("postflop_solver_spot: {message}");
    exit(2)
}

fn parse_number<T: std::str::FromStr>(name: &str, text: &str) -> T {
    text.parse()
        .unwrap_or_else(|_| fail(&format!("--{name} {text:?} is not a number")))
}

fn parse_options() -> Options {
    let mut options = Options {
        board: String::new(),
        oop: String::new(),
        ip: String::new(),
        pot: 0,
        stack: 0,
        bets: "60%,e,a".to_string(),
        raises: "2.5x".to_string(),
        threads: 1,
        targets: vec![0.5],
        max_iterations: 1000,
    };
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    if arguments.len() % 2 != 0 {
        fail("every option takes one value (--name value)");
    }
    for pair in arguments.chunks(2) {
        let (name, value) = (pair[0].trim_start_matches("--"), pair[1].as_str());
        match name {
            "board" => options.board = value.to_string(),
            "oop" => options.oop = value.to_string(),
            "ip" => options.ip = value.to_string(),
            "pot" => options.pot = parse_number(name, value),
            "stack" => options.stack = parse_number(name, value),
            "bets" => options.bets = value.to_string(),
            "raises" => options.raises = value.to_string(),
            "threads" => options.threads = parse_number(name, value),
            "max-iterations" => options.max_iterations = parse_number(name, value),
            "targets" => {
                options.targets = value
                    .split(',')
                    .map(|t| parse_number(name, t.trim()))
                    .collect();
                options.targets.sort_by(|a, b| b.partial_cmp(a).unwrap());
            }
            _ => fail(&format!("unknown option --{name}")),
        }
    }
    if options.board.is_empty() || options.oop.is_empty() || options.ip.is_empty() {
        fail("--board, --oop and --ip are required");
    }
    options
}

fn card_configuration(options: &Options) -> (CardConfig, BoardState) {
    let board = options.board.replace(' ', "");
    if board.len() != 6 && board.len() != 8 && board.len() != 10 {
        fail(&format!("board {board:?} is not 3, 4 or 5 cards"));
    }
    let card =
        |index: usize| card_from_str(&board[2 * index..2 * index + 2]).unwrap_or_else(|e| fail(&e));
    let range = |text: &str| -> Range { text.parse().unwrap_or_else(|e: String| fail(&e)) };
    let config = CardConfig {
        range: [range(&options.oop), range(&options.ip)],
        flop: flop_from_str(&board[..6]).unwrap_or_else(|e| fail(&e)),
        turn: if board.len() >= 8 { card(3) } else { NOT_DEALT },
        river: if board.len() == 10 {
            card(4)
        } else {
            NOT_DEALT
        },
    };
    let state = match board.len() {
        6 => BoardState::Flop,
        8 => BoardState::Turn,
        _ => BoardState::River,
    };
    (config, state)
}

/// Nodes of the game tree (player, chance, terminal), walked from the root.
fn count_nodes(node: &PostFlopNode, counts: &mut [u64; 3]) {
    let kind = if node.is_terminal() {
        2
    } else if node.is_chance() {
        1
    } else {
        0
    };
    counts[kind] += 1;
    for action in 0..node.num_actions() {
        count_nodes(&node.play(action), counts);
    }
}

fn json_number(value: Option<f64>) -> String {
    value.map_or("null".to_string(), |v| format!("{v}"))
}

fn main() {
    let options = parse_options();
    rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build_global()
        .unwrap_or_else(|e| fail(&e.to_string()));

    let started = Instant::now();
    let (card_config, initial_state) = card_configuration(&options);
    let sizes = BetSizeOptions::try_from((options.bets.as_str(), options.raises.as_str()))
        .unwrap_or_else(|e| fail(&e));
    let tree_config = TreeConfig {
        initial_state,
        starting_pot: options.pot,
        effective_stack: options.stack,
        rake_rate: 0.0,
        rake_cap: 0.0,
        flop_bet_sizes: [sizes.clone(), sizes.clone()],
        turn_bet_sizes: [sizes.clone(), sizes.clone()],
        river_bet_sizes: [sizes.clone(), sizes],
        turn_donk_sizes: None,
        river_donk_sizes: None,
        add_allin_threshold: 1.5,
        force_allin_threshold: 0.15,
        merging_threshold: 0.1,
    };
    let action_tree = ActionTree::new(tree_config).unwrap_or_else(|e| fail(&e));
    let mut game = PostFlopGame::with_config(card_config, action_tree).unwrap_or_else(|e| fail(&e));
    let (memory_bytes, _) = game.memory_usage();
    game.allocate_memory(false);
    let build_seconds = started.elapsed().as_secs_f64();

    let pot = options.pot as f64;
    let mut reached: Vec<Option<(u32, f64)>> = vec![None; options.targets.len()];
    let solving = Instant::now();
    let mut exploitability_pct = 100.0 * compute_exploitability(&game) as f64 / pot;
    let mut iterations = 0;
    for (target, slot) in options.targets.iter().zip(reached.iter_mut()) {
        if exploitability_pct <= *target {
            *slot = Some((0, solving.elapsed().as_secs_f64()));
        }
    }
    while iterations < options.max_iterations && reached.iter().any(Option::is_none) {
        solve_step(&game, iterations);
        iterations += 1;
        if iterations % 10 == 0 || iterations == options.max_iterations {
            exploitability_pct = 100.0 * compute_exploitability(&game) as f64 / pot;
            let seconds = solving.elapsed().as_secs_f64();
            for (target, slot) in options.targets.iter().zip(reached.iter_mut()) {
                if slot.is_none() && exploitability_pct <= *target {
                    *slot = Some((iterations, seconds));
                }
            }
        }
    }
    let seconds = solving.elapsed().as_secs_f64();
    finalize(&mut game);

    game.cache_normalized_weights();
    let oop_ev = compute_average(&game.expected_values(0), game.normalized_weights(0)) as f64;
    let ip_ev = compute_average(&game.expected_values(1), game.normalized_weights(1)) as f64;
    let mut counts = [0u64; 3];
    count_nodes(&game.root(), &mut counts);

    let targets: Vec<String> = options
        .targets
        .iter()
        .zip(&reached)
        .map(|(target, slot)| {
            format!(
                "{{\"target_pct\": {target}, \"iterations\": {}, \"seconds\": {}}}",
                json_number(slot.map(|(i, _)| i as f64)),
                json_number(slot.map(|(_, s)| s)),
            )
        })
        .collect();
    println!(
        "{{\"targets\": [{}], \"iterations\": {iterations}, \"seconds\": {seconds}, \
         \"build_seconds\": {build_seconds}, \"exploitability_pct\": {}, \
         \"memory_bytes\": {memory_bytes}, \"oop_ev\": {oop_ev}, \"ip_ev\": {ip_ev}, \
         \"num_nodes\": {}, \"player_nodes\": {}, \"chance_nodes\": {}, \"terminal_nodes\": {}, \
         \"threads\": {}}}",
        targets.join(", "),
        exploitability_pct,
        counts.iter().sum::<u64>(),
        counts[0],
        counts[1],
        counts[2],
        options.threads,
    );
}
