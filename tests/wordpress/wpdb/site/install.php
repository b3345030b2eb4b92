<?php

/**
 * Installs the assembled WordPress from the command line, as the installer does
 * (wp_install(), then permalinks /%postname%/): php install.php <wordpress root>.
 * Prints the new site's URL on success.
 */

define('WP_INSTALLING', true);

// The new-site e-mail would go through mail(): a test site sends none.
function wp_new_blog_notification($blog_title, $blog_url, $user_id, $password)
{
}

$_SERVER['HTTP_HOST'] = parse_url(getenv('BERTH_TEST_SITE_URL') ?: 'http://127.0.0.1', PHP_URL_HOST);
$_SERVER['REQUEST_URI'] = '/';
require $argv[1] . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';

if (is_blog_installed()) {
    fwrite(STDERR, "install.php: WordPress is installed already\n");
    exit(1);
}
$result = wp_install('Berth Test Site', 'admin', 'admin@example.com', true, '', 'correct horse battery staple');
if (!is_array($result) || empty($result['user_id'])) {
    fwrite(STDERR, 'install.php: wp_install failed: ' . print_r($result, true) . "\n");
    exit(1);
}
// Pretty permalinks, as Berth's installer sets them. The rules are built by the first web
// request: here, outside wp-admin, taxonomies registered no rewrite rules of their own.
global $wp_rewrite;
$wp_rewrite->set_permalink_structure('/%postname%/');
delete_option('rewrite_rules');
echo get_option('siteurl'), "\n";
