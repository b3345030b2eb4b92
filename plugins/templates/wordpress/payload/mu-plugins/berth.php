<?php
/**
 * Plugin Name: Berth
 * Description: How WordPress behaves on Berth: no outgoing mail or update checks, pretty
 * permalinks behind the edge, media links to the project's file storage (/_files/uploads/).
 * Must-use: always on, not shown among the plugins a person can switch off.
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
    exit;
}

// Outgoing mail: the server sends none. wp_mail() answers false (as when sending fails), and
// one line says so in the project's logs: the subject and how many recipients, never who.
add_filter('pre_wp_mail', static function ($answer, array $mail) {
    $to = $mail['to'] ?? [];
    $count = is_array($to) ? count($to) : count(array_filter(array_map('trim', explode(',', (string) $to))));
    error_log(sprintf(
        'berth: WordPress did not send the mail "%s" to %d recipient(s): this server sends no mail',
        str_replace(["\r", "\n"], ' ', (string) ($mail['subject'] ?? '')),
        $count
    ));
    return false;
}, 10, 2);

// Updates: Debian's package and the platform bring them, never the dashboard. The checks are
// answered here, "nothing new", without asking WordPress.org.
add_filter('pre_site_transient_update_core', static function () {
    return (object) [
        'updates' => [],
        'version_checked' => get_bloginfo('version'),
        'last_checked' => time(),
        'translations' => [],
    ];
});
$berth_no_updates = static function () {
    return (object) [
        'last_checked' => time(),
        'checked' => [],
        'response' => [],
        'no_update' => [],
        'translations' => [],
    ];
};
add_filter('pre_site_transient_update_plugins', $berth_no_updates);
add_filter('pre_site_transient_update_themes', $berth_no_updates);
unset($berth_no_updates);

// WordPress.org's other APIs (the browser and PHP version nags, events, translations) are
// answered at once, without the network, as an unreachable service: WordPress then shows no
// nag. WP_HTTP_BLOCK_EXTERNAL would refuse them too, after a lookup and with a warning.
add_filter('pre_http_request', static function ($answer, array $args, string $url) {
    $host = strtolower((string) parse_url($url, PHP_URL_HOST));
    if ($host === 'wordpress.org' || str_ends_with($host, '.wordpress.org') || $host === 's.w.org') {
        return new WP_Error('berth_offline', 'WordPress.org is not reached from this server.');
    }
    return $answer;
}, 10, 3);

// The dashboard's "WordPress Events and News" box reads WordPress.org: not offered.
add_action('wp_dashboard_setup', static function () {
    remove_meta_box('dashboard_primary', 'dashboard', 'side');
});

// Pretty permalinks: the platform sends every path that is not a file to /index.php (the usual
// try_files rule), which is what WordPress asks of a server that rewrites URLs.
add_filter('got_url_rewrite', '__return_true');

// Media: WordPress's links to uploads point at the project's file storage, which the edge
// serves at /_files/; files are put there with the platform's file routes. The folder WordPress
// writes to is the project's writable one (the release is read-only) and is never served.
add_filter('upload_dir', static function (array $dir) {
    $base = rtrim(home_url('/_files/uploads'), '/');
    $dir['baseurl'] = $base;
    $dir['url'] = $base . $dir['subdir'];
    $home = getenv('HOME');
    if (is_string($home) && $home !== '') {
        $dir['basedir'] = rtrim($home, '/') . '/wordpress-uploads';
        $dir['path'] = $dir['basedir'] . $dir['subdir'];
    }
    return $dir;
});

// Uploading from the dashboard is not offered: the file would stay in a folder no visitor can
// reach. The message says what to do instead.
$berth_no_upload = static function (array $file) {
    $file['error'] = 'Uploading from the dashboard is not available on this server. Put the file '
        . 'in the project\'s file storage under uploads/ (for example uploads/photo.jpg); it is then '
        . 'at ' . home_url('/_files/uploads/photo.jpg') . '.';
    return $file;
};
add_filter('wp_handle_upload_prefilter', $berth_no_upload);
add_filter('wp_handle_sideload_prefilter', $berth_no_upload);
unset($berth_no_upload);
