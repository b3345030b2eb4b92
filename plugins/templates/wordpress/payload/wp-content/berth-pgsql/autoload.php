<?php

/**
 * Class loading for the berth-pgsql library: Berth\Pg\X lives in X.php beside this file,
 * Berth\Pg\Sub\X in Sub/X.php; every Berth\Pg\Ast\ class lives in the one file Ast.php
 * (small node classes, always needed together).
 */

declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    $prefix = 'Berth\\Pg\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $rest = substr($class, strlen($prefix));
    if (strncmp($rest, 'Ast\\', 4) === 0) {
        require_once __DIR__ . '/Ast.php';
        return;
    }
    $file = __DIR__ . '/' . str_replace('\\', '/', $rest) . '.php';
    if (is_file($file)) {
        require_once $file;
    }
});
