<?php

/**
 * PHPUnit bootstrap for the drop-in's tests: WordPress's own wpdb class and the few core
 * files its methods call (hooks, errors, translations), from Debian's package, then the
 * berth-pgsql library. The site test (WordPressSiteTest) runs WordPress in processes of its own.
 */

declare(strict_types=1);

const BERTH_WORDPRESS = '/usr/share/wordpress/';
define('BERTH_PAYLOAD', dirname(__DIR__, 3) . '/plugins/templates/wordpress/payload');

$admin = getenv('DATABASE_URL');
if ($admin !== false && $admin !== '' && getenv('BERTH_TEST_ADMIN_URL') === false) {
    putenv('BERTH_TEST_ADMIN_URL=' . $admin);
}

define('ABSPATH', BERTH_WORDPRESS);
define('WPINC', 'wp-includes');
define('WP_CONTENT_DIR', BERTH_PAYLOAD . '/wp-content');
define('WP_DEBUG', false);
define('WP_DEBUG_DISPLAY', false);
foreach (['version', 'compat', 'load', 'class-wp-error', 'plugin', 'functions', 'l10n', 'pomo/translations', 'class-wpdb'] as $file) {
    require_once ABSPATH . WPINC . "/$file.php";
}
require_once BERTH_PAYLOAD . '/wp-content/berth-pgsql/autoload.php';
require_once __DIR__ . '/ProjectDatabase.php';
require_once __DIR__ . '/ProjectDatabaseCase.php';
