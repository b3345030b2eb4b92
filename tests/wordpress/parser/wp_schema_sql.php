<?php

/**
 * Prints, as a JSON list, the CREATE TABLE statements WordPress's own wp_get_db_schema()
 * produces (single site and multisite), split the way dbDelta() splits them. It loads the
 * real wp-admin/includes/schema.php from the Debian package with the least stubs it needs,
 * in its own process so the stubs never meet other code.
 *
 * Usage: php wp_schema_sql.php [/usr/share/wordpress]
 */

declare(strict_types=1);

$root = $argv[1] ?? '/usr/share/wordpress';

/** Just what wp_get_db_schema() reads from $wpdb. */
final class SchemaStubWpdb
{
    public int $blogid = 1;
    public string $prefix = 'wp_';

    public function __get(string $table): string
    {
        return 'wp_' . $table;   // $wpdb->posts, $wpdb->sitemeta, ...
    }

    public function get_charset_collate(): string
    {
        return 'DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci';
    }
}

$multisite = false;

function is_multisite(): bool
{
    return $GLOBALS['multisite'];
}

$wpdb = new SchemaStubWpdb();
require $root . '/wp-admin/includes/schema.php';

$statements = [];
foreach ([false, true] as $multisite) {
    // dbDelta(): explode( ';', $queries ) and drop the empty pieces.
    foreach (explode(';', wp_get_db_schema('all')) as $sql) {
        if (trim($sql) !== '') {
            $statements[$sql] = true;
        }
    }
}
echo json_encode(array_keys($statements), JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES), "\n";
