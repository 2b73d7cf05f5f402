/**
 * Counts the event loop's turns from now until `stop()`: how many times other callbacks got to run meanwhile
 * (a loop held by synchronous work counts none).
 */
export function countLoopTurns(): { stop: () => number } {
  let turns = 0;
  let counting = true;
  const turn = () => {
    turns += 1;
    if (counting) setImmediate(turn);
  };
  setImmediate(turn);
  return {
    stop: () => {
      counting = false;
      return turns;
    },
  };
}
