#!/usr/bin/env node
// A random bot for arena written in JavaScript for Node, with no npm packages: it speaks the
// line protocol of docs/protocol.md on stdin/stdout and plays tic-tac-toe or ultimate
// tic-tac-toe (uttt). A bot in another language cannot use arena's game engines, so it keeps
// its own board: it applies the moves the harness reports and its own replies, and answers each
// move request with a uniformly random legal move drawn from a generator seeded by the game's
// seed (so a game is reproducible).
//
//   arena register --command "node /full/path/to/random_bot.js" --name node-random
//   arena register --command "node /full/path/to/random_bot.js" --name node-random --game uttt
"use strict";

const readline = require("readline");

const DESCRIPTION = "Random legal moves, in JavaScript: tic-tac-toe and ultimate tic-tac-toe.";
const GAMES = ["tictactoe", "uttt"];
const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

function send(message) {
  // stdout to a pipe is synchronous in Node on Linux, so the line leaves at once.
  process.stdout.write(JSON.stringify(message) + "\n");
}

// mulberry32: a small seeded generator; the 63-bit seed is folded into 32 bits.
function generator(seed) {
  let state = Number(BigInt.asUintN(32, BigInt(Math.trunc(seed)) ^ (BigInt(Math.trunc(seed)) >> 32n)));
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hasLine(cells, mark) {
  return LINES.some((line) => line.every((cell) => cells[cell] === mark));
}

// Tic-tac-toe: cells 0-8, row by row; a move's text is the cell index.
class TicTacToe {
  constructor() {
    this.cells = new Array(9).fill(null);
    this.ply = 0;
  }
  play(text) {
    const cell = Number(text);
    if (!Number.isInteger(cell) || cell < 0 || cell > 8 || this.cells[cell] !== null) {
      throw new Error(`move ${JSON.stringify(text)} is not legal here`);
    }
    this.cells[cell] = this.ply % 2;
    this.ply += 1;
  }
  legal() {
    const moves = [];
    this.cells.forEach((mark, cell) => { if (mark === null) moves.push(String(cell)); });
    return moves;
  }
}

// Ultimate tic-tac-toe: a move "B C" is cell C of small board B; the cell names the board the
// opponent must play in, unless that board is closed (won or full): then any open board.
class Ultimate {
  constructor() {
    this.boards = Array.from({ length: 9 }, () => new Array(9).fill(null));
    this.closed = new Array(9).fill(false);
    this.forced = null;
    this.ply = 0;
  }
  play(text) {
    const match = /^\s*([0-8])\s*(?:,|\s)\s*([0-8])\s*$/.exec(text);
    if (match === null) throw new Error(`move ${JSON.stringify(text)} is not a uttt move`);
    const board = Number(match[1]);
    const cell = Number(match[2]);
    const small = this.boards[board];
    if (this.closed[board] || small[cell] !== null || (this.forced !== null && this.forced !== board)) {
      throw new Error(`move ${JSON.stringify(text)} is not legal here`);
    }
    const mark = this.ply % 2;
    small[cell] = mark;
    if (hasLine(small, mark) || small.every((c) => c !== null)) this.closed[board] = true;
    this.forced = this.closed[cell] ? null : cell;
    this.ply += 1;
  }
  legal() {
    const moves = [];
    for (let board = 0; board < 9; board += 1) {
      if (this.closed[board] || (this.forced !== null && this.forced !== board)) continue;
      this.boards[board].forEach((mark, cell) => { if (mark === null) moves.push(`${board} ${cell}`); });
    }
    return moves;
  }
}

let game = null;
let random = null;

function handle(message) {
  switch (message.type) {
    case "describe":
      send({ type: "description", description: DESCRIPTION, games: GAMES, parameters: null });
      break;
    case "new_game": {
      const name = message.game.name;
      if (name === "tictactoe") game = new TicTacToe();
      else if (name === "uttt") game = new Ultimate();
      else {
        send({ type: "error", kind: "exception", message: `this bot plays ${GAMES.join(", ")}, not ${name}` });
        return;
      }
      random = generator(message.seed);
      send({ type: "ready", description: DESCRIPTION, games: GAMES });
      break;
    }
    case "move": {
      for (const text of message.moves) game.play(text);
      if (message.ply !== game.ply) throw new Error(`out of step: harness at ply ${message.ply}, bot at ${game.ply}`);
      const legal = game.legal();
      const choice = legal[Math.floor(random() * legal.length)];
      game.play(choice);
      send({ type: "move", move: choice });
      break;
    }
    case "game_over":
      game = null;
      break;
    case "quit":
      process.exit(0);
      break;
    default:
      break; // messages a later protocol version may add
  }
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  try {
    handle(JSON.parse(line));
  } catch (error) {
    // Say what went wrong; the harness forfeits the game and starts a new process.
    console.error(error.stack);
    send({ type: "error", kind: "exception", message: String(error.message) });
  }
});
