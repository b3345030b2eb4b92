<?php

/**
 * Runs WordPress's own dbDelta() (wp-admin/includes/upgrade.php from the Debian package) twice
 * over WordPress's schema (single site and multisite tables) through the translator, as a
 * project's role, and prints both change lists as JSON. The second list is what a WordPress
 * upgrade would change although nothing changed: it must be empty, which holds only when
 * DESCRIBE and SHOW INDEX answer in the shapes dbDelta compares against. Its own process:
 * the stubs are global functions.
 *   php dbdelta_twice.php   (DATABASE_URL of a cluster whose superuser may create a role)
 */

declare(strict_types=1);

require_once __DIR__ . '/bootstrap.php';

use Berth\Pg\MysqlError;
use Berth\Pg\Tests\ProjectSchema;

function apply_filters(string $hook, mixed $value): mixed
{
    return $value;
}

/** Just what dbDelta() asks of $wpdb, answered through the translator. */
final class DbDeltaWpdb
{
    public array $ran = [];

    public function __construct(private ProjectSchema $db)
    {
    }

    public function suppress_errors(bool $suppress = true): bool
    {
        return false;
    }

    public function get_results(string $query): array
    {
        try {
            $rows = $this->db->query($query)['rows'];
        } catch (MysqlError) {
            return [];
        }
        return array_map(static fn (array $row): object => (object) $row, $rows);
    }

    public function query(string $query): bool
    {
        $this->ran[] = $query;
        $this->db->query($query);
        return true;
    }

    public function tables(): array
    {
        return [];
    }

    public function db_version(): string
    {
        return preg_replace('/[^0-9.].*/', '', \Berth\Pg\Translator::SERVER_VERSION);
    }

    public function db_server_info(): string
    {
        return \Berth\Pg\Translator::SERVER_VERSION;
    }
}

$root = $argv[1] ?? '/usr/share/wordpress';
define('ABSPATH', $root . '/');
$source = file_get_contents($root . '/wp-admin/includes/upgrade.php');
if (!preg_match('/^function dbDelta\(.*?^}\n/ms', $source, $m)) {
    fwrite(STDERR, "no dbDelta() in upgrade.php\n");
    exit(1);
}
eval($m[0]);

$schema = json_decode((string) shell_exec('php ' . escapeshellarg(__DIR__ . '/../parser/wp_schema_sql.php') . ' ' . escapeshellarg($root)), true);
$queries = [];
foreach ($schema as $sql) {
    preg_match('/CREATE TABLE (\S+)/', $sql, $t);
    $queries[$t[1]] = trim($sql);  // wp_users comes twice (single site, multisite): the last wins
}
$GLOBALS['wpdb'] = new DbDeltaWpdb(ProjectSchema::create());
$first = dbDelta(array_values($queries));
$firstRan = $GLOBALS['wpdb']->ran;
$GLOBALS['wpdb']->ran = [];
$second = dbDelta(array_values($queries));
$secondRan = $GLOBALS['wpdb']->ran;
// An upgrade: wp_options gains a column and a key, a column grows, a default changes.
$changed = $queries;
$changed['wp_options'] = str_replace(
    ["autoload varchar(20) NOT NULL default 'yes',", 'KEY autoload (autoload)'],
    ["autoload varchar(30) NOT NULL default 'no',\n\textra bigint(20) unsigned NOT NULL default '0',", "KEY autoload (autoload),\n\tKEY extra (extra,option_name(100))"],
    $queries['wp_options']
);
$GLOBALS['wpdb']->ran = [];
$upgrade = dbDelta(array_values($changed));
$upgradeRan = $GLOBALS['wpdb']->ran;
$GLOBALS['wpdb']->ran = [];
$after = dbDelta(array_values($changed));
echo json_encode(['tables' => array_keys($queries), 'first' => array_values($first), 'second' => array_values($second),
    'secondRan' => $secondRan, 'upgrade' => array_values($upgrade), 'upgradeRan' => $upgradeRan,
    'afterUpgrade' => array_values($after), 'afterUpgradeRan' => $GLOBALS['wpdb']->ran,
    'describe' => $GLOBALS['wpdb']->get_results('DESCRIBE wp_options')], JSON_PRETTY_PRINT), "\n";
