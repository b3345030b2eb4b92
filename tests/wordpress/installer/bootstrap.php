<?php

/**
 * PHPUnit bootstrap for the installer's payload tests: where the payload is. WordPress itself
 * runs in processes of its own (one site per process, as in production).
 */

declare(strict_types=1);

define('BERTH_PAYLOAD', dirname(__DIR__, 3) . '/plugins/templates/wordpress/payload');
require_once __DIR__ . '/BuiltSite.php';
