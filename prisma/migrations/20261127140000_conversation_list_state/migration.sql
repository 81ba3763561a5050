-- The conversation list computed every conversation's group, last activity and unread count
-- from its members and messages on each request, then paged: ~0.9 s for one row of a company
-- with 40,000 conversations. What the list groups, filters and orders by is now stored on the
-- conversation row and indexed, so a page reads only its own rows:
--   last_activity_at  the newest message's created_at, else the conversation's created_at;
--   list_group        channels, customers (email, SMS, or any member a customer), team_directs
--                     or team_groups;
--   creator_pinned    the creator's membership is pinned;
--   creator_unread    a message from someone other than the creator is newer than the
--                     creator's last_read_at (any such message when never read).
-- Triggers keep them true for every writer of messages, members, users' roles and
-- conversations, in the writing transaction: nothing in this service writes messages, so only
-- the database sees every change. Each trigger locks the conversations it changes (in id order)
-- before it reads, so concurrent writers to one conversation take turns and each one's
-- computation sees what the ones before it committed; a message insert only moves
-- last_activity_at forward (GREATEST), so the later of two concurrent messages wins.

-- AlterTable
ALTER TABLE "conversations" ADD COLUMN "last_activity_at" TIMESTAMPTZ(3),
ADD COLUMN "list_group" TEXT,
ADD COLUMN "creator_pinned" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "creator_unread" BOOLEAN NOT NULL DEFAULT false;

CREATE FUNCTION conversation_list_group(conversation_type TEXT, has_customer BOOLEAN) RETURNS TEXT
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN conversation_type = 'ChannelConversation' THEN 'channels'
    WHEN conversation_type IN ('EmailConversation', 'SmsConversation') OR has_customer THEN 'customers'
    WHEN conversation_type = 'DirectConversation' THEN 'team_directs'
    ELSE 'team_groups'
  END
$$;

CREATE FUNCTION conversations_lock_for_list_state(ids INTEGER[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  -- NO KEY UPDATE, the lock an UPDATE of these columns takes: it does not wait for the KEY
  -- SHARE lock each inserted message's foreign key check holds on its conversation.
  PERFORM 1 FROM conversations WHERE id = ANY (ids) ORDER BY id FOR NO KEY UPDATE;
END
$$;

-- Recomputes the stored list state of the conversations from their rows.
CREATE FUNCTION conversations_refresh_list_state(ids INTEGER[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  PERFORM conversations_lock_for_list_state(ids);
  UPDATE conversations c SET
    last_activity_at = coalesce((SELECT max(m.created_at) FROM messages m WHERE m.conversation_id = c.id), c.created_at),
    list_group = conversation_list_group(c.type, EXISTS (
      SELECT 1 FROM conversation_recipients r JOIN users u ON u.id = r.user_id
      WHERE r.conversation_id = c.id AND u.role = 'customer'
    )),
    creator_pinned = coalesce(creator.pinned, false),
    creator_unread = EXISTS (
      SELECT 1 FROM messages m
      WHERE m.conversation_id = c.id AND m.sender_id IS DISTINCT FROM c.creator_id
        AND (creator.last_read_at IS NULL OR m.created_at > creator.last_read_at)
    )
  FROM conversations own
  LEFT JOIN conversation_recipients creator ON creator.conversation_id = own.id AND creator.user_id = own.creator_id
  WHERE own.id = c.id AND c.id = ANY (ids);
END
$$;

-- A new conversation has no members or messages yet: its type alone decides its group.
CREATE FUNCTION conversations_initial_list_state() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.last_activity_at := NEW.created_at;
  NEW.list_group := conversation_list_group(NEW.type, false);
  NEW.creator_pinned := false;
  NEW.creator_unread := false;
  RETURN NEW;
END
$$;

CREATE FUNCTION conversations_after_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversations_refresh_list_state(ARRAY[NEW.id]);
  RETURN NULL;
END
$$;

-- New messages only add: activity moves forward, and a message from someone else after the
-- creator's last read makes the conversation unread.
CREATE FUNCTION messages_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversations_lock_for_list_state(ARRAY(SELECT DISTINCT conversation_id FROM inserted));
  UPDATE conversations c SET
    last_activity_at = GREATEST(c.last_activity_at, added.newest),
    creator_unread = c.creator_unread OR added.unread
  FROM (
    SELECT i.conversation_id, max(i.created_at) AS newest,
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

-- Only a message's conversation, sender and time matter (a body edit changes nothing here).
CREATE FUNCTION messages_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversations_refresh_list_state(ARRAY(
    WITH changed AS (
      SELECT o.conversation_id AS before_id, n.conversation_id AS after_id
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (o.conversation_id, o.sender_id, o.created_at) IS DISTINCT FROM (n.conversation_id, n.sender_id, n.created_at)
    )
    SELECT before_id FROM changed UNION SELECT after_id FROM changed
  ));
  RETURN NULL;
END
$$;

CREATE FUNCTION messages_after_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversations_refresh_list_state(ARRAY(SELECT DISTINCT conversation_id FROM old_rows));
  RETURN NULL;
END
$$;

-- A new member can only make a conversation a customer one; the creator's own membership
-- brings its pinned and read state.
CREATE FUNCTION conversation_recipients_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversations_lock_for_list_state(ARRAY(SELECT DISTINCT conversation_id FROM inserted));
  UPDATE conversations c SET list_group = conversation_list_group(c.type, true)
  WHERE c.id IN (SELECT i.conversation_id FROM inserted i JOIN users u ON u.id = i.user_id WHERE u.role = 'customer');
  PERFORM conversations_refresh_list_state(ARRAY(
    SELECT DISTINCT i.conversation_id FROM inserted i JOIN conversations c ON c.id = i.conversation_id AND c.creator_id = i.user_id
  ));
  RETURN NULL;
END
$$;

-- Another member's pinned or read state is not the list's business; the creator's is, and so
-- is who the members are.
CREATE FUNCTION conversation_recipients_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
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

CREATE FUNCTION conversation_recipients_after_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversations_refresh_list_state(ARRAY(SELECT DISTINCT conversation_id FROM old_rows));
  RETURN NULL;
END
$$;

CREATE FUNCTION conversations_refresh_all_list_state() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversations_refresh_list_state(ARRAY(SELECT id FROM conversations));
  RETURN NULL;
END
$$;

CREATE FUNCTION users_after_role_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM conversations_refresh_list_state(ARRAY(SELECT conversation_id FROM conversation_recipients WHERE user_id = NEW.id));
  RETURN NULL;
END
$$;

CREATE TRIGGER conversations_initial_list_state BEFORE INSERT ON conversations
  FOR EACH ROW EXECUTE FUNCTION conversations_initial_list_state();
CREATE TRIGGER conversations_after_change AFTER UPDATE OF type, created_at, creator_id ON conversations
  FOR EACH ROW WHEN (OLD.type IS DISTINCT FROM NEW.type OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.creator_id IS DISTINCT FROM NEW.creator_id)
  EXECUTE FUNCTION conversations_after_change();
CREATE TRIGGER messages_after_insert AFTER INSERT ON messages
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION messages_after_insert();
CREATE TRIGGER messages_after_update AFTER UPDATE ON messages
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION messages_after_update();
CREATE TRIGGER messages_after_delete AFTER DELETE ON messages
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION messages_after_delete();
CREATE TRIGGER conversation_recipients_after_insert AFTER INSERT ON conversation_recipients
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION conversation_recipients_after_insert();
CREATE TRIGGER conversation_recipients_after_update AFTER UPDATE ON conversation_recipients
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION conversation_recipients_after_update();
CREATE TRIGGER conversation_recipients_after_delete AFTER DELETE ON conversation_recipients
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION conversation_recipients_after_delete();
CREATE TRIGGER messages_after_truncate AFTER TRUNCATE ON messages
  FOR EACH STATEMENT EXECUTE FUNCTION conversations_refresh_all_list_state();
CREATE TRIGGER conversation_recipients_after_truncate AFTER TRUNCATE ON conversation_recipients
  FOR EACH STATEMENT EXECUTE FUNCTION conversations_refresh_all_list_state();
CREATE TRIGGER users_after_role_change AFTER UPDATE OF role ON users
  FOR EACH ROW WHEN (OLD.role IS DISTINCT FROM NEW.role) EXECUTE FUNCTION users_after_role_change();

-- Backfill, then the columns every row now has.
SELECT conversations_refresh_list_state(ARRAY(SELECT id FROM conversations));
ALTER TABLE "conversations" ALTER COLUMN "last_activity_at" SET NOT NULL,
ALTER COLUMN "list_group" SET NOT NULL;

-- Each group's page is a range of this index, walked in the list's order; a conversation
-- changes its place only when a message or its creator's state moves it.
-- DropIndex
DROP INDEX "conversations_company_id_created_at_idx";

-- CreateIndex
CREATE INDEX "conversations_list_order_idx" ON "conversations"("company_id", "list_group", "creator_unread", "last_activity_at" DESC, "id" DESC);
