/**
 * The Redis learning store's atomic steps, as Lua run by Redis in one piece: an answer with its counts and streak,
 * and a quiz's closing with the streaks it ends. The streak rule is streak-rule.ts's, written again in Lua;
 * test/learning/learning-store.test.ts holds every store to the same outcomes.
 */

/**
 * A server's rank zset orders its members as the SQL stores do: by current streak, then total (both descending),
 * then id. The score is minus boardScore (learning-store.ts), so ascending order (ZRANGE, ZRANK) breaks ties by
 * member id ascending, as Redis orders equal scores. Formatted as an integer: Lua's own conversion keeps 14 digits.
 */
const RANK_SCORE = `
local function rankScore(streak)
  return string.format('%.0f', -(math.min(streak.current, 9999999) * 10000000 + math.min(streak.total, 9999999)))
end
`;

/**
 * A store written before the rank zset existed has a server's streaks in their hash and a 'board' zset scored the
 * other way; the rank zset is built from the hash when its size is not the hash's, and the old zset goes. Every
 * write since keeps the rank zset a subset of the hash with the hash's scores, so equal sizes mean it is whole.
 * KEYS: 1 streak hash, 2 rank zset, 3 the old board zset.
 */
const HEAL_RANK = `${RANK_SCORE}
if redis.call('ZCARD', KEYS[2]) ~= redis.call('HLEN', KEYS[1]) then
  redis.call('DEL', KEYS[2], KEYS[3])
  local all = redis.call('HGETALL', KEYS[1])
  local batch = {}
  for i = 1, #all, 2 do
    table.insert(batch, rankScore(cjson.decode(all[i + 1])))
    table.insert(batch, all[i])
    if #batch >= 1000 or i + 1 >= #all then
      redis.call('ZADD', KEYS[2], unpack(batch))
      batch = {}
    end
  end
end
`;

/**
 * A rank (BoardRow's: tied members share it) is one plus the members of a lower score, counted by the zset:
 * ZCOUNT below the member's score.
 */
const RANK_OF = `
local function rankOf(score)
  return redis.call('ZCOUNT', KEYS[2], '-inf', '(' .. score) + 1
end
`;

/** KEYS as HEAL_RANK's. ARGV: 1 offset, 2 limit. Returns {members, streak JSON, rank, streak JSON, rank…}. */
export const BOARD_PAGE_SCRIPT = `${HEAL_RANK}${RANK_OF}
local page = redis.call('ZRANGE', KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[1]) + tonumber(ARGV[2]) - 1, 'WITHSCORES')
local result = {redis.call('ZCARD', KEYS[2])}
for i = 1, #page, 2 do
  local stored = redis.call('HGET', KEYS[1], page[i])
  if stored then
    table.insert(result, stored)
    table.insert(result, rankOf(page[i + 1]))
  end
end
return result
`;

/** KEYS as HEAL_RANK's. ARGV: 1 member. Returns the member's rank, or false. */
export const BOARD_RANK_SCRIPT = `${HEAL_RANK}${RANK_OF}
local score = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not score then return false end
return rankOf(score)
`;

/**
 * KEYS: 1 quiz hash, 2 its answers hash, 3 the member's answered set, 4 the server's streak hash, 5 rank zset,
 * 6 active-streak zset (member → last right day number), 7 the server's quiz days zset, 8 the member's servers set.
 * ARGV: 1 member, 2 answer JSON, 3 right ('1'/'0'), 4 day, 5 server, 6 quiz member entry, 7 the day's number,
 * 8 the pressed post's message id ('': not checked). Returns {'no-quiz'} | {'closed'} | {'already', answer JSON} | {'recorded', streak JSON or ''}.
 */
export const ANSWER_SCRIPT = `${RANK_SCORE}
local json = redis.call('HGET', KEYS[1], 'json')
if not json then return {'no-quiz'} end
local post = cjson.decode(json)
if post.guildId ~= ARGV[5] then return {'no-quiz'} end
if ARGV[8] ~= '' and post.messageId ~= ARGV[8] then return {'no-quiz'} end
local previous = redis.call('HGET', KEYS[2], ARGV[1])
if previous then return {'already', previous} end
local closed = redis.call('HGET', KEYS[1], 'closed')
if closed == '1' or closed == '2' then return {'closed'} end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[6])
redis.call('HINCRBY', KEYS[1], 'answered', 1)
local stored = redis.call('HGET', KEYS[4], ARGV[1])
if ARGV[3] ~= '1' then return {'recorded', stored or ''} end
redis.call('HINCRBY', KEYS[1], 'right', 1)
local day = ARGV[4]
local before = redis.call('ZREVRANGEBYLEX', KEYS[7], '(' .. day, '-', 'LIMIT', 0, 1)[1]
local streak
if not stored then
  streak = {guildId = ARGV[5], userId = ARGV[1], run = 1, current = 1, best = 1, total = 1, lastDay = day}
else
  streak = cjson.decode(stored)
  if streak.lastDay == day then return {'recorded', stored} end
  if streak.lastDay > day then
    streak.total = streak.total + 1
  else
    local run = 1
    if before and streak.lastDay == before then run = streak.run + 1 end
    streak.run = run
    streak.current = run
    if run > streak.best then streak.best = run end
    streak.total = streak.total + 1
    streak.lastDay = day
  end
end
local encoded = cjson.encode(streak)
redis.call('HSET', KEYS[4], ARGV[1], encoded)
redis.call('ZADD', KEYS[5], rankScore(streak), ARGV[1])
if streak.lastDay == day and streak.current > 0 then redis.call('ZADD', KEYS[6], tonumber(ARGV[7]), ARGV[1]) end
redis.call('SADD', KEYS[8], ARGV[5])
return {'recorded', encoded}
`;

/**
 * KEYS: 1 quiz hash, 2 open quizzes zset, 3 active-streak zset, 4 streak hash, 5 rank zset.
 * ARGV: 1 quiz entry, 2 the day's number. Closes the quiz ('closed' '2': no more answers, its reveal still to make;
 * it stays in the open set until REVEALED_SCRIPT). Ends the current streaks of members whose last right day is
 * earlier, and takes them off the active set, so the next closing does not read them again. Returns 1, or 0 if
 * already closed.
 */
export const CLOSE_SCRIPT = `${RANK_SCORE}
if not redis.call('HGET', KEYS[1], 'json') then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 0
end
local closed = redis.call('HGET', KEYS[1], 'closed')
if closed == '1' or closed == '2' then return 0 end
redis.call('HSET', KEYS[1], 'closed', '2')
local ended = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[2])
for _, member in ipairs(ended) do
  local stored = redis.call('HGET', KEYS[4], member)
  if stored then
    local streak = cjson.decode(stored)
    streak.current = 0
    redis.call('HSET', KEYS[4], member, cjson.encode(streak))
    redis.call('ZADD', KEYS[5], rankScore(streak), member)
  end
  redis.call('ZREM', KEYS[3], member)
end
return 1
`;

/** KEYS: 1 quiz hash, 2 open quizzes zset. ARGV: 1 quiz entry. A closed quiz's post is revealed: it is due no more. */
export const REVEALED_SCRIPT = `
if redis.call('HGET', KEYS[1], 'closed') ~= '2' then return 0 end
redis.call('HSET', KEYS[1], 'closed', '1')
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;
