/**
 * The names MySQL's ordering triggers share with run-time code, kept here as copies (a released migration
 * is never imported at run time): migration 110's feed triggers write nothing while this session variable
 * is set, and migration 150's tail-turn triggers raise this row.
 */
export const FEED_PAUSED = '@collab_feed_paused';

/** Takes the tail turn: the one row of `tail_turns` that every insert into a tailed table raises (migration 150). */
export const TAKE_TAIL_TURN = 'UPDATE tail_turns SET n = n + 1 WHERE id = 1';
