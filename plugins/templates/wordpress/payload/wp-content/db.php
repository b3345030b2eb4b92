<?php

/**
 * WordPress's database drop-in: WordPress speaks MySQL, the project's database is
 * PostgreSQL. Berth\Pg\Wpdb translates every statement (see berth-pgsql/README.md) and
 * connects with the project's DATABASE_URL; DB_NAME, DB_USER, DB_PASSWORD and DB_HOST are
 * not used for the connection (DB_NAME only names the database in MySQL's messages).
 */

declare(strict_types=1);

require_once __DIR__ . '/berth-pgsql/autoload.php';

// require_wp_db() declares $wpdb global before it loads this file.
$wpdb = new Berth\Pg\Wpdb(
    defined('DB_USER') ? DB_USER : '',
    defined('DB_PASSWORD') ? DB_PASSWORD : '',
    defined('DB_NAME') ? DB_NAME : '',
    defined('DB_HOST') ? DB_HOST : ''
);
