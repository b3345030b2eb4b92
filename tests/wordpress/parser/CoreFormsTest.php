<?php

declare(strict_types=1);

require_once __DIR__ . '/bootstrap.php';

use Berth\Pg\Ast;
use Berth\Pg\Parser;
use PHPUnit\Framework\TestCase;

/**
 * Statements WordPress 6.1 core builds that the captured flows do not reach: written out from
 * WP_Query, WP_Meta_Query, WP_Tax_Query, WP_Date_Query, WP_Comment_Query, WP_User_Query,
 * option.php, wpdb, upgrade.php (dbDelta and the upgrade_xxx() functions), site health and the
 * cron/upgrader locks, as they come out with typical arguments.
 */
final class CoreFormsTest extends TestCase
{
    /** @return array<string, array{0: string, 1: class-string}> */
    public static function statements(): array
    {
        $select = Ast\Select::class;
        return [
            // WP_Meta_Query
            'meta BETWEEN with CAST' => ["SELECT wp_posts.ID FROM wp_posts INNER JOIN wp_postmeta ON ( wp_posts.ID = wp_postmeta.post_id ) WHERE 1=1 AND ( ( wp_postmeta.meta_key = 'price' AND CAST(wp_postmeta.meta_value AS SIGNED) BETWEEN '1' AND '5' ) ) AND wp_posts.post_type = 'post' GROUP BY wp_posts.ID ORDER BY wp_posts.post_date DESC LIMIT 0, 10", $select],
            'meta NOT EXISTS' => ["SELECT wp_posts.ID FROM wp_posts LEFT JOIN wp_postmeta AS mt1 ON (wp_posts.ID = mt1.post_id AND mt1.meta_key = 'color' ) WHERE 1=1 AND ( mt1.post_id IS NULL ) GROUP BY wp_posts.ID", $select],
            'meta REGEXP and DECIMAL' => ["SELECT wp_posts.ID FROM wp_posts INNER JOIN wp_postmeta ON ( wp_posts.ID = wp_postmeta.post_id ) WHERE ( wp_postmeta.meta_key = 'k' AND wp_postmeta.meta_value NOT REGEXP '^a' ) OR CAST(wp_postmeta.meta_value AS DECIMAL(10,2)) > '1.5' OR CAST(wp_postmeta.meta_value AS BINARY) = 'X' OR CAST(wp_postmeta.meta_value AS DATETIME) < '2020-01-01 00:00:00' OR wp_postmeta.meta_value RLIKE 'z'", $select],
            'orderby meta CAST' => ['SELECT wp_posts.* FROM wp_posts ORDER BY CAST(wp_postmeta.meta_value AS UNSIGNED) DESC, wp_posts.menu_order ASC', $select],
            // WP_Query
            'post__in FIELD order' => ['SELECT wp_posts.* FROM wp_posts WHERE 1=1 AND wp_posts.ID IN (3,1,2) ORDER BY FIELD( wp_posts.ID, 3,1,2 )', $select],
            'orderby rand' => ['SELECT SQL_CALC_FOUND_ROWS DISTINCT wp_posts.* FROM wp_posts ORDER BY RAND(5) LIMIT 0, 5', $select],
            'search CASE relevance' => ["SELECT wp_posts.ID FROM wp_posts WHERE 1=1 AND (((wp_posts.post_title LIKE '%hello%') OR (wp_posts.post_excerpt LIKE '%hello%') OR (wp_posts.post_content LIKE '%hello%'))) ORDER BY (CASE WHEN wp_posts.post_title LIKE '%hello world%' THEN 1 WHEN wp_posts.post_title LIKE '%hello%' AND wp_posts.post_title LIKE '%world%' THEN 2 WHEN wp_posts.post_excerpt LIKE '%hello world%' THEN 4 ELSE 6 END), wp_posts.post_date DESC LIMIT 0, 10", $select],
            'adjacent post' => ["SELECT p.ID FROM wp_posts AS p  WHERE p.post_date < '2022-01-01 10:00:00' AND p.post_type = 'post' AND ( p.post_status = 'publish' OR p.post_status = 'private' ) ORDER BY p.post_date DESC LIMIT 1", $select],
            // WP_Tax_Query
            'tax NOT IN subquery' => ['SELECT wp_posts.ID FROM wp_posts WHERE 1=1 AND ( wp_posts.ID NOT IN ( SELECT object_id FROM wp_term_relationships WHERE term_taxonomy_id IN (5) ) )', $select],
            'tax NOT EXISTS' => ["SELECT wp_posts.ID FROM wp_posts WHERE NOT EXISTS ( SELECT 1 FROM wp_term_relationships INNER JOIN wp_term_taxonomy ON wp_term_taxonomy.term_taxonomy_id = wp_term_relationships.term_taxonomy_id WHERE wp_term_taxonomy.taxonomy = 'category' AND wp_term_relationships.object_id = wp_posts.ID )", $select],
            'tax AND count subquery' => ['SELECT wp_posts.ID FROM wp_posts WHERE ( SELECT COUNT(1) FROM wp_term_relationships WHERE term_taxonomy_id IN (5,6) AND object_id = wp_posts.ID ) = 2', $select],
            // WP_Date_Query
            'date functions' => ["SELECT wp_posts.ID FROM wp_posts WHERE ( YEAR( wp_posts.post_date ) = 2022 AND MONTH( wp_posts.post_date ) = 1 AND DAYOFMONTH( wp_posts.post_date ) = 5 AND WEEK( wp_posts.post_date, 1 ) = 2 AND DAYOFWEEK( wp_posts.post_date ) = 3 AND WEEKDAY( wp_posts.post_date ) + 1 = 4 AND DAYOFYEAR( wp_posts.post_date ) = 5 AND HOUR( wp_posts.post_date ) BETWEEN 1 AND 5 AND MINUTE( wp_posts.post_date ) = 3 AND SECOND( wp_posts.post_date ) = 0 AND DATE_FORMAT( wp_posts.post_date, '%H.%i%s' ) = 12.0000 AND wp_posts.post_date_gmt > '2020-01-01 00:00:00' )", $select],
            // archives, counts
            'archives' => ["SELECT YEAR(post_date) AS `year`, MONTH(post_date) AS `month`, count(ID) as posts FROM wp_posts  WHERE post_type = 'post' AND post_status = 'publish' GROUP BY YEAR(post_date), MONTH(post_date) ORDER BY post_date DESC", $select],
            'count posts' => ["SELECT post_status, COUNT( * ) AS num_posts FROM wp_posts WHERE post_type = 'post' GROUP BY post_status", $select],
            'count users' => ["SELECT COUNT(NULLIF(`meta_value` LIKE '%\\\"administrator\\\"%', false)), COUNT(NULLIF(`meta_value` = 'a:0:{}', false)), COUNT(*) FROM wp_usermeta INNER JOIN wp_users ON user_id = ID WHERE meta_key = 'wp_capabilities'", $select],
            'count comments' => ['SELECT comment_approved, COUNT( * ) AS total FROM wp_comments  GROUP BY comment_approved', $select],
            'user query' => ["SELECT DISTINCT SQL_CALC_FOUND_ROWS wp_users.ID FROM wp_users INNER JOIN wp_usermeta ON ( wp_users.ID = wp_usermeta.user_id ) WHERE 1=1 AND ( ( ( wp_usermeta.meta_key = 'wp_capabilities' AND wp_usermeta.meta_value LIKE '%\\\"administrator\\\"%' ) ) ) AND (user_login LIKE '%adm%' OR user_url LIKE '%adm%') ORDER BY user_login ASC LIMIT 0, 20", $select],
            'found rows' => ['SELECT FOUND_ROWS()', $select],
            // wpdb
            'sql_mode' => ['SELECT @@SESSION.sql_mode', $select],
            'set sql_mode' => ["SET SESSION sql_mode='NO_ZERO_IN_DATE,NO_ENGINE_SUBSTITUTION'", Ast\Set::class],
            'set names' => ["SET NAMES 'utf8mb4' COLLATE 'utf8mb4_unicode_520_ci'", Ast\Set::class],
            'show tables like' => ["SHOW TABLES LIKE 'wp\\\\_%'", Ast\Show::class],
            'show full columns' => ['SHOW FULL COLUMNS FROM wp_posts', Ast\Show::class],
            'table status' => ["SHOW TABLE STATUS LIKE 'wp_posts'", Ast\Show::class],
            'character set var' => ["SELECT @@character_set_database, @@collation_connection", $select],
            // option.php and transients
            'add option upsert' => ["INSERT INTO `wp_options` (`option_name`, `option_value`, `autoload`) VALUES ('x', 'a:1:{i:0;s:1:\\\"y\\\";}', 'yes') ON DUPLICATE KEY UPDATE `option_name` = VALUES(`option_name`), `option_value` = VALUES(`option_value`), `autoload` = VALUES(`autoload`)", Ast\Insert::class],
            'expired transients' => ["DELETE a, b FROM wp_options a, wp_options b\n\t\t\tWHERE a.option_name LIKE '\\\\_transient\\\\_%'\n\t\t\tAND a.option_name NOT LIKE '\\\\_transient\\\\_timeout\\\\_%'\n\t\t\tAND b.option_name = CONCAT( '_transient_timeout_', SUBSTRING( a.option_name, 12 ) )\n\t\t\tAND b.option_value < 1700000000", Ast\Delete::class],
            'site transients' => ["DELETE a, b FROM wp_sitemeta a, wp_sitemeta b WHERE a.meta_key LIKE '\\\\_site\\\\_transient\\\\_%' AND a.meta_key NOT LIKE '\\\\_site\\\\_transient\\\\_timeout\\\\_%' AND b.meta_key = CONCAT( '_site_transient_timeout_', SUBSTRING( a.meta_key, 17 ) ) AND b.meta_value < 1700000000", Ast\Delete::class],
            // locks
            'upgrader lock' => ["INSERT IGNORE INTO `wp_options` ( `option_name`, `option_value`, `autoload` ) VALUES ('core_updater.lock', '1700000000', 'no') /* LOCK */", Ast\Insert::class],
            'term relationships upsert' => ['INSERT INTO wp_term_relationships (object_id, term_taxonomy_id, term_order) VALUES (5,1,0), (5,2,1) ON DUPLICATE KEY UPDATE term_order = VALUES(term_order)', Ast\Insert::class],
            // upgrade.php
            'maybe_create_table' => ["SHOW TABLES LIKE 'wp\\\\_x'", Ast\Show::class],
            'desc' => ['DESC wp_posts', Ast\Describe::class],
            'show index' => ['SHOW INDEX FROM wp_posts;', Ast\Show::class],
            'upgrade update' => ["UPDATE wp_posts SET post_status = 'inherit' WHERE post_type = 'attachment' AND post_status != 'trash'", Ast\Update::class],
            'upgrade delete like' => ["DELETE FROM wp_options WHERE option_name LIKE 'rss\\\\_%' AND LENGTH(option_name) IN (36, 39)", Ast\Delete::class],
            'upgrade update join' => ["UPDATE wp_posts p INNER JOIN wp_postmeta m ON p.ID = m.post_id SET p.post_status = 'draft' WHERE m.meta_key = '_x'", Ast\Update::class],
            'convert charset' => ['ALTER TABLE wp_posts CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci', Ast\AlterTable::class],
            'modify column' => ['ALTER TABLE wp_options MODIFY option_name VARCHAR(191)', Ast\AlterTable::class],
            'set default' => ["ALTER TABLE wp_posts ALTER COLUMN `post_status` SET DEFAULT 'publish'", Ast\AlterTable::class],
            'drop and add index' => ['ALTER TABLE wp_signups DROP INDEX domain_path, ADD INDEX domain_path(domain(140),path(51))', Ast\AlterTable::class],
            // site health
            'table sizes' => ["SELECT TABLE_NAME AS 'table', TABLE_ROWS AS 'rows', SUM(data_length + index_length) as 'bytes' FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'wp' AND TABLE_NAME IN ('wp_posts','wp_comments') GROUP BY TABLE_NAME;", $select],
            'version' => ['SELECT VERSION()', $select],
            'show variables' => ["SHOW VARIABLES LIKE 'max_allowed_packet'", Ast\Show::class],
            // general MySQL that plugins send
            'for update' => ["SELECT option_value FROM wp_options WHERE option_name = 'x' LIMIT 1 FOR UPDATE", $select],
            'union' => ["SELECT ID FROM wp_posts WHERE post_type = 'post' UNION ALL SELECT ID FROM wp_posts WHERE post_type = 'page' ORDER BY ID LIMIT 10 OFFSET 5", $select],
            'derived table' => ['SELECT COUNT(*) FROM (SELECT post_author FROM wp_posts GROUP BY post_author) AS authors', $select],
            'group_concat' => ["SELECT post_id, GROUP_CONCAT(meta_key ORDER BY meta_key SEPARATOR ', ') FROM wp_postmeta GROUP BY post_id", $select],
            'if and interval' => ["SELECT IF(post_date > NOW() - INTERVAL 1 DAY, 'new', 'old') AS age FROM wp_posts WHERE post_date_gmt < DATE_ADD(UTC_TIMESTAMP(), INTERVAL 2 HOUR)", $select],
            'transaction' => ['START TRANSACTION', Ast\Transaction::class],
            'lock tables' => ['LOCK TABLES wp_options WRITE', Ast\LockTables::class],
            'truncate' => ['TRUNCATE TABLE wp_x', Ast\TruncateTable::class],
            'drop' => ['DROP TABLE IF EXISTS wp_x', Ast\DropTable::class],
            'replace' => ["REPLACE INTO wp_options (option_name, option_value, autoload) VALUES ('a', 'b', 'no')", Ast\Insert::class],
            'index hint' => ["SELECT ID FROM wp_posts FORCE INDEX (type_status_date) WHERE post_type = 'post'", $select],
        ];
    }

    /**
     * @dataProvider statements
     * @param class-string $class
     */
    public function testParses(string $sql, string $class): void
    {
        $this->assertInstanceOf($class, (new Parser())->parse($sql));
    }
}
