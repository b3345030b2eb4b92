<?php
/**
 * Berth's wp-config.php, the same in every WordPress project of a server: what differs between
 * projects comes from the app's environment, which the platform sets (BERTH_URL, DATABASE_URL)
 * and the install generated (the keys and salts, runtime secrets). Nothing here is edited per
 * project; README.md of the wordpress template plugin says why each setting is what it is.
 */

/** A missing variable stops the request with a line in the project's logs, never a guess. */
function berth_config_fail(string $why): void
{
    error_log('berth wp-config.php: ' . $why);
    if (PHP_SAPI === 'cli') {
        // The install script's one line (.berth/install.php), and no second one after it.
        fwrite(STDOUT, 'berth install: ' . $why . "\n");
        $GLOBALS['berth_install_ended'] = true;
        exit(1);
    }
    http_response_code(500);
    header('Content-Type: text/plain; charset=utf-8');
    echo "This site is not configured yet; its owner can see why in the project's logs.\n";
    exit;
}

// WordPress is installed by Berth's installer (.berth/install.php, run as the app), never by a
// visitor: before it ran, the first visitor could otherwise make themselves the administrator.
if (PHP_SAPI !== 'cli') {
    $berth_script = strtolower((string) ($_SERVER['SCRIPT_NAME'] ?? ''));
    if ($berth_script === '/wp-admin/install.php' || $berth_script === '/wp-admin/setup-config.php') {
        http_response_code(404);
        header('Content-Type: text/plain; charset=utf-8');
        echo "WordPress is installed by the platform's installer, not from this page.\n";
        exit;
    }
}

// The keys and salts: runtime secrets WORDPRESS_<NAME>, generated once by the install.
foreach (['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY',
          'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT'] as $berth_key) {
    $berth_value = getenv('WORDPRESS_' . $berth_key);
    if ($berth_value === false || strlen($berth_value) < 32) {
        berth_config_fail("the secret WORDPRESS_$berth_key is missing or shorter than 32 characters; run the WordPress install again to generate it");
    }
    define($berth_key, $berth_value);
}

// The site's address: the project's, as the runtime gives it (it follows a verified domain:
// the app restarts with the new one). The constants win over the home and siteurl options.
$berth_url = rtrim((string) getenv('BERTH_URL'), '/');
if (!preg_match('#^https?://[^/\s]+$#', $berth_url)) {
    berth_config_fail('BERTH_URL (the project\'s address) is missing or not an http(s) address');
}
define('WP_HOME', $berth_url);
define('WP_SITEURL', $berth_url);

// HTTPS: the edge tells PHP itself (FastCGI's HTTPS=on when it took the request over TLS),
// which WordPress's is_ssl() reads. X-Forwarded-Proto reaches PHP exactly as the client sent it
// (nginx passes request headers to FastCGI unchanged), so it is dropped, never believed. An
// https project address means TLS ends before the edge: every request then counts as HTTPS.
unset($_SERVER['HTTP_X_FORWARDED_PROTO']);
if (str_starts_with($berth_url, 'https://')) {
    $_SERVER['HTTPS'] = 'on';
}

// The database: the project's PostgreSQL, reached by the drop-in (wp-content/db.php) through
// DATABASE_URL. These constants are only what WordPress shows and checks; the password stays
// in the environment.
$berth_db = parse_url((string) getenv('DATABASE_URL'));
if (!is_array($berth_db)) {
    berth_config_fail('DATABASE_URL (the project\'s database) is missing or not a URL');
}
define('DB_NAME', rawurldecode(ltrim($berth_db['path'] ?? '', '/')));
define('DB_USER', rawurldecode($berth_db['user'] ?? ''));
define('DB_PASSWORD', '');
define('DB_HOST', ($berth_db['host'] ?? 'localhost') . (isset($berth_db['port']) ? ':' . $berth_db['port'] : ''));
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
$table_prefix = 'wp_';

// Runs only when the platform's schedule requests /wp-cron.php (every 15 minutes), never on a
// visitor's page view, which would make a request to the site itself.
define('DISABLE_WP_CRON', true);

// The release is read-only and replaced by every install: nothing is edited or installed from
// the dashboard (themes, plugins, core, translations), and WordPress never updates itself.
define('DISALLOW_FILE_EDIT', true);
define('DISALLOW_FILE_MODS', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_AUTO_UPDATE_CORE', false);

// No request leaves the server (WordPress.org's APIs are answered by the must-use plugin);
// requests to the site's own address are still allowed.
define('WP_HTTP_BLOCK_EXTERNAL', true);

define('WP_DEBUG', false);

if (!defined('ABSPATH')) {
    define('ABSPATH', __DIR__ . '/');
}

require_once ABSPATH . 'wp-settings.php';
