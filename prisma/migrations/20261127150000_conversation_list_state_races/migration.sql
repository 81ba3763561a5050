-- Races in the list state kept by 20261127140000_conversation_list_state: a trigger that chose
-- what to recompute from a snapshot taken before its locks missed what a concurrent writer had
-- not committed, and nothing made either wait for the other.
--   * A role change did not see a membership still being inserted, and the insert read the old
--     role: its foreign key check takes KEY SHARE on the user, which the role update's NO KEY
--     UPDATE does not conflict with. The conversation kept the old role's group.
--   * A pin or read of the member about to become the creator was skipped (not the creator yet),
--     and the creator change read that member's state from before it.
-- Now adding a member first locks the member's user FOR SHARE, which a role update waits for and
-- which waits for a role update: the later of the two sees the other's row (the role trigger
-- reads the memberships after its UPDATE holds the user). Users are locked before conversations
-- everywhere (a role change holds its user, then locks the user's conversations), so this adds no
-- cycle between the triggers; FOR SHARE does not conflict with itself, so conversations created
-- at once with the same members do not take turns. A creator change locks the new creator's
-- membership FOR SHARE before it reads it, so a pin or read under way is waited for and a later
-- one waits until the new creator is committed, then sees it. Every member's pin or read locking
-- its conversation would do as well, but would make each read wait for the conversation's
-- messages being written (and deadlock with a writer that inserts a message, then marks the same
-- member's read); creator changes are rare, reads are not.

-- FOR SHARE, the weakest lock a role update's NO KEY UPDATE conflicts with.
CREATE FUNCTION users_lock_for_list_state(ids INTEGER[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM users WHERE id = ANY (ids) ORDER BY id FOR SHARE;
END
$$;

CREATE OR REPLACE FUNCTION conversation_recipients_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM users_lock_for_list_state(ARRAY(SELECT DISTINCT user_id FROM inserted));
  PERFORM conversations_lock_for_list_state(ARRAY(SELECT DISTINCT conversation_id FROM inserted));
  UPDATE conversations c SET list_group = conversation_list_group(c.type, true)
  WHERE c.id IN (SELECT i.conversation_id FROM inserted i JOIN users u ON u.id = i.user_id WHERE u.role = 'customer');
  PERFORM conversations_refresh_list_state(ARRAY(
    SELECT DISTINCT i.conversation_id FROM inserted i JOIN conversations c ON c.id = i.conversation_id AND c.creator_id = i.user_id
  ));
  RETURN NULL;
END
$$;

-- A membership moved to another user or conversation is a new member there: its user is locked
-- as a new member's is.
CREATE OR REPLACE FUNCTION conversation_recipients_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM users_lock_for_list_state(ARRAY(
    SELECT n.user_id FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (o.conversation_id, o.user_id) IS DISTINCT FROM (n.conversation_id, n.user_id)
  ));
  PERFORM conversations_refresh_list_state(ARRAY(
    SELECT changed.conversation_id
    FROM old_rows o JOIN new_rows n ON n.id = o.id
    CROSS JOIN LATERAL (VALUES (o.conversation_id, o.user_id), (n.conversation_id, n.user_id)) changed(conversation_id, user_id)
    JOIN conversations c ON c.id = changed.conversation_id
    WHERE (o.conversation_id, o.user_id) IS DISTINCT FROM (n.conversation_id, n.user_id)
       OR (c.creator_id = changed.user_id AND (o.pinned, o.last_read_at) IS DISTINCT FROM (n.pinned, n.last_read_at))
  ));
  RETURN NULL;
END
$$;

-- conversation_recipients_after_update decides whether a member is the creator before it locks
-- anything: a new creator's pin or read written meanwhile would be skipped there and unseen here.
-- Locking the new creator's membership waits for such a write under way, and makes a later one
-- wait until the new creator is committed, so that its trigger sees it.
CREATE OR REPLACE FUNCTION conversations_after_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.creator_id IS DISTINCT FROM OLD.creator_id THEN
    PERFORM 1 FROM conversation_recipients WHERE conversation_id = NEW.id AND user_id = NEW.creator_id FOR SHARE;
  END IF;
  PERFORM conversations_refresh_list_state(ARRAY[NEW.id]);
  RETURN NULL;
END
$$;
