-- last_activity_at had two definitions in 20261127140000_conversation_list_state: a message
-- insert kept GREATEST(stored, newest), which never goes below the conversation's created_at,
-- while every recomputation took the newest message's created_at, else the conversation's. A
-- message older than its conversation (imported history) dated the conversation by its creation
-- until an unrelated write (a pin, a read, a member leaving) moved it back down the list. Both
-- paths now call conversation_last_activity_at, the documented definition and what the list
-- computed before the state was stored; the index on messages (conversation_id, created_at)
-- answers its max with one index probe. The recomputation now writes only rows whose state
-- differs, and is run once over every conversation to repair what the old insert path (or a
-- race fixed by 20261127150000_conversation_list_state_races) left.

CREATE FUNCTION conversation_last_activity_at(conversation INTEGER, conversation_created_at TIMESTAMPTZ) RETURNS TIMESTAMPTZ
LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT max(m.created_at) FROM messages m WHERE m.conversation_id = conversation), conversation_created_at)
$$;

CREATE OR REPLACE FUNCTION conversations_refresh_list_state(ids INTEGER[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  PERFORM conversations_lock_for_list_state(ids);
  UPDATE conversations c SET
    last_activity_at = fresh.last_activity_at,
    list_group = fresh.list_group,
    creator_pinned = fresh.creator_pinned,
    creator_unread = fresh.creator_unread
  FROM (
    SELECT own.id,
      conversation_last_activity_at(own.id, own.created_at) AS last_activity_at,
      conversation_list_group(own.type, EXISTS (
        SELECT 1 FROM conversation_recipients r JOIN users u ON u.id = r.user_id
        WHERE r.conversation_id = own.id AND u.role = 'customer'
      )) AS list_group,
      coalesce(creator.pinned, false) AS creator_pinned,
      EXISTS (
        SELECT 1 FROM messages m
        WHERE m.conversation_id = own.id AND m.sender_id IS DISTINCT FROM own.creator_id
          AND (creator.last_read_at IS NULL OR m.created_at > creator.last_read_at)
      ) AS creator_unread
    FROM conversations own
    LEFT JOIN conversation_recipients creator ON creator.conversation_id = own.id AND creator.user_id = own.creator_id
    WHERE own.id = ANY (ids)
  ) fresh
  WHERE c.id = fresh.id
    AND (c.last_activity_at, c.list_group, c.creator_pinned, c.creator_unread)
      IS DISTINCT FROM (fresh.last_activity_at, fresh.list_group, fresh.creator_pinned, fresh.creator_unread);
END
$$;

-- New messages only add: a message from someone else after the creator's last read makes the
-- conversation unread; activity is read again from the messages, which now include these.
CREATE OR REPLACE FUNCTION messages_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversations_lock_for_list_state(ARRAY(SELECT DISTINCT conversation_id FROM inserted));
  UPDATE conversations c SET
    last_activity_at = conversation_last_activity_at(c.id, c.created_at),
    creator_unread = c.creator_unread OR added.unread
  FROM (
    SELECT i.conversation_id,
      bool_or(i.sender_id IS DISTINCT FROM own.creator_id AND (creator.last_read_at IS NULL OR i.created_at > creator.last_read_at)) AS unread
    FROM inserted i
    JOIN conversations own ON own.id = i.conversation_id
    LEFT JOIN conversation_recipients creator ON creator.conversation_id = own.id AND creator.user_id = own.creator_id
    GROUP BY i.conversation_id
  ) added
  WHERE c.id = added.conversation_id;
  RETURN NULL;
END
$$;

-- Repairs what the old definition of last activity, or a race, left.
SELECT conversations_refresh_list_state(ARRAY(SELECT id FROM conversations));
