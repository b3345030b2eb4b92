<?php

/**
 * The test site's configuration (copied into the assembled WordPress tree by
 * WordPressSiteTest). The database is the project's PostgreSQL from DATABASE_URL, reached by
 * the drop-in wp-content/db.php; DB_NAME only names it in MySQL-style messages.
 */

$berth_url = getenv('DATABASE_URL');
if ($berth_url === false || $berth_url === '') {
    fwrite(STDERR, "wp-config.php: DATABASE_URL is not set\n");
    exit(1);
}
define('DB_NAME', rawurldecode(ltrim((string) parse_url($berth_url, PHP_URL_PATH), '/')));
define('DB_USER', '');
define('DB_PASSWORD', '');
define('DB_HOST', '');
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');

// Fixed salts: a throw-away test site.
foreach (['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT'] as $berth_key) {
    define($berth_key, 'berth-wpdb-test-' . strtolower($berth_key));
}

$berth_site = getenv('BERTH_TEST_SITE_URL') ?: 'http://127.0.0.1';
define('WP_HOME', $berth_site);
define('WP_SITEURL', $berth_site);

// Nothing reaches the network: no update checks, no cron loopback requests.
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('DISABLE_WP_CRON', true);
define('WP_DEBUG', false);

$table_prefix = 'wp_';

if (!defined('ABSPATH')) {
    define('ABSPATH', __DIR__ . '/');
}
require_once ABSPATH . 'wp-settings.php';
