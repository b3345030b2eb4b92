<?php

declare(strict_types=1);

namespace Berth\Pg\Tests;

use Berth\Pg\Wpdb;

/**
 * A test's own project database (a role that owns its schema, as a project's), PHP's
 * error_log captured into a file the test reads, and a Wpdb connected as the project.
 */
trait ProjectDatabaseCase
{
    private ProjectDatabase $database;
    private string $log;
    private string $previousLog;

    private function openProject(): void
    {
        $this->database = ProjectDatabase::create();
        $this->log = tempnam(sys_get_temp_dir(), 'wpdb-log');
        $this->previousLog = (string) ini_get('error_log');
        ini_set('error_log', $this->log);
    }

    private function closeProject(): void
    {
        ini_set('error_log', $this->previousLog);
        @unlink($this->log);
        $this->database->drop();
    }

    /** A new Wpdb on DATABASE_URL ($url, else the project's), as a request of the app makes. */
    private function connectWpdb(string $url = ''): Wpdb
    {
        putenv('DATABASE_URL=' . ($url ?: $this->database->url));
        $wpdb = new Wpdb('', '', 'wp', '');
        $this->assertTrue($wpdb->ready, 'connected as the project role: ' . (string) ($wpdb->error instanceof \WP_Error ? $wpdb->error->get_error_message() : $wpdb->error));
        return $wpdb;
    }
}
