#!/usr/bin/env node
// Pig, the dice game, as a referee for arena written in JavaScript for Node with no npm
// packages: it speaks the JSON-lines referee protocol of docs/referee.md on stdin/stdout.
// 2 to 4 players take turns; on a turn a player rolls a die as often as they like: each roll
// adds to the turn's total, a 1 loses it and ends the turn; "hold" banks the total. The first to
// bank the target wins at once; after the last round the highest bank wins (returns: the banks).
// After five rolls in a turn, and once the bank and the turn's total reach the target, a player
// can only hold. The die is a chance node: arena draws it with the tournament's seed.
//
//   node pig.js [--target N]      (default 30)
//   arena game check "node examples/referees/pig.js --target 20"
//   arena run examples/referees/pig.yaml
"use strict";

const readline = require("readline");

const MAX_ROLLS = 5;
const MAX_ROUNDS = 20;
const MAX_PLAYERS = 4;

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`pig: ${name} must be a whole number from 1 up\n`);
    process.exit(2);
  }
  return value;
}

const TARGET = option("--target", 30);

function info() {
  return {
    name: "pig",
    players: [2, MAX_PLAYERS],
    // every turn at most MAX_ROLLS rolls (a decision and a die each) and a hold
    max_length: MAX_ROUNDS * MAX_PLAYERS * (2 * MAX_ROLLS + 1),
    hidden: false,
    notation: "a move is 'roll' or 'hold'; a die, the chance outcome, '1' to '6' (e.g. 'roll')",
    pattern: "roll|hold|[1-6]",
    seats: [],
    parameters: { rounds: { default: 10, min: 1, max: MAX_ROUNDS } },
  };
}

function start(players, params) {
  return {
    banks: new Array(players).fill(0),
    turn: 0,
    total: 0,
    rolls: 0,
    round: 1,
    rounds: params.rounds,
    rolling: false,
    last: null,
  };
}

// What the referee says of a state: who acts and their legal moves, the die's outcomes, or the
// returns once the game is over.
function describe(state) {
  if (state.banks.some((bank) => bank >= TARGET) || state.round > state.rounds) {
    return { to_move: "over", returns: state.banks.slice() };
  }
  if (state.rolling) {
    return { to_move: "chance", outcomes: ["1", "2", "3", "4", "5", "6"].map((face) => [face, 1 / 6]) };
  }
  const mustHold = state.rolls >= MAX_ROLLS || state.banks[state.turn] + state.total >= TARGET;
  const legal = state.rolls === 0 ? ["roll"] : mustHold ? ["hold"] : ["hold", "roll"];
  return { to_move: state.turn, legal };
}

function nextTurn(state) {
  state.total = 0;
  state.rolls = 0;
  state.turn += 1;
  if (state.turn === state.banks.length) {
    state.turn = 0;
    state.round += 1;
  }
}

function apply(previous, moves) {
  const state = JSON.parse(JSON.stringify(previous));
  const move = moves.length === 1 ? moves[0] : null;
  const described = describe(state);
  const legal = described.to_move === "chance" ? described.outcomes.map((pair) => pair[0]) : described.legal || [];
  if (!legal.includes(move)) {
    throw new Error(`${JSON.stringify(moves)} is not legal here`);
  }
  if (state.rolling) {
    state.rolling = false;
    state.last = Number(move);
    if (move === "1") {
      nextTurn(state);
    } else {
      state.total += Number(move);
      state.rolls += 1;
    }
  } else if (move === "roll") {
    state.rolling = true;
  } else {
    state.banks[state.turn] += state.total;
    state.last = null;
    if (state.banks[state.turn] < TARGET) nextTurn(state);
  }
  return state;
}

function seatName(seat) {
  return `p${seat + 1}`;
}

function render(state) {
  const described = describe(state);
  const banks = state.banks.map((bank, seat) => `${seatName(seat)} ${bank}`).join(", ");
  const lines = [`round ${Math.min(state.round, state.rounds)} of ${state.rounds}, target ${TARGET}; banks: ${banks}`];
  if (described.to_move === "over") {
    lines.push("the game is over");
  } else {
    const waiting = state.rolling ? ", the die rolling" : "";
    lines.push(`${seatName(state.turn)} to play: turn total ${state.total} after ${state.rolls} rolls${waiting}`);
  }
  if (state.last !== null) lines.push(`last die: ${state.last}`);
  const board = {
    boards: [
      {
        rows: 1,
        cols: state.banks.length,
        cells: state.banks.map((bank) => String(Math.min(bank, 999))),
        label: "banks",
        highlight: described.to_move === "over" ? [] : [state.turn],
      },
    ],
    notes: lines.slice(1),
  };
  return { text: lines.join("\n"), board };
}

function answer(request) {
  switch (request.type) {
    case "info":
      return info();
    case "start": {
      const state = start(request.players, request.params);
      return { state, ...describe(state) };
    }
    case "apply": {
      let state;
      try {
        state = apply(request.state, request.moves);
      } catch (error) {
        return { error: error.message };
      }
      return { state, ...describe(state) };
    }
    case "view":
      // nothing is hidden: every seat, and the spectator, may know the whole state
      return { view: { ...request.state, target: TARGET } };
    case "render":
      return render(request.state);
    default:
      return { error: `unknown request ${JSON.stringify(request.type)}` };
  }
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  // stdout to a pipe is synchronous in Node on Linux, so each answer leaves at once
  process.stdout.write(JSON.stringify(answer(JSON.parse(line))) + "\n");
});
