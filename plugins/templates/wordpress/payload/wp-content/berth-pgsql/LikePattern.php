<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * MySQL LIKE patterns as PostgreSQL regular expressions that mean the same under MySQL's
 * utf8mb4_unicode_ci: case-insensitive (the regex runs as ~* under an ICU collation) and
 * accent-insensitive, each letter matching its accented forms ('cafe' finds 'café', 'été'
 * finds 'ete'), as the case- and accent-insensitive collation already makes `=` compare.
 */
final class LikePattern
{
    /**
     * Latin letters with the characters utf8mb4_unicode_520_ci compares equal to them: those
     * whose canonical decomposition is the letter plus combining marks (U+00C0-U+024F,
     * U+1E00-U+1EFF, from Unicode's data) and the letters MariaDB 10.11 also equates (ð đ ø ħ
     * ł ŀ ſ); each checked with LIKE on mariadbd.
     */
    private const ACCENTED = [
        'a' => 'ÀÁÂÃÄÅàáâãäåĀāĂăĄąǍǎǞǟǠǡǺǻȀȁȂȃȦȧḀḁẠạẢảẤấẦầẨẩẪẫẬậẮắẰằẲẳẴẵẶặ',
        'b' => 'ḂḃḄḅḆḇ',
        'c' => 'ÇçĆćĈĉĊċČčḈḉ',
        'd' => 'ĎďḊḋḌḍḎḏḐḑḒḓÐðĐđ',
        'e' => 'ÈÉÊËèéêëĒēĔĕĖėĘęĚěȄȅȆȇȨȩḔḕḖḗḘḙḚḛḜḝẸẹẺẻẼẽẾếỀềỂểỄễỆệ',
        'f' => 'Ḟḟ',
        'g' => 'ĜĝĞğĠġĢģǦǧǴǵḠḡ',
        'h' => 'ĤĥȞȟḢḣḤḥḦḧḨḩḪḫẖĦħ',
        'i' => 'ÌÍÎÏìíîïĨĩĪīĬĭĮįİǏǐȈȉȊȋḬḭḮḯỈỉỊị',
        'j' => 'Ĵĵǰ',
        'k' => 'ĶķǨǩḰḱḲḳḴḵ',
        'l' => 'ĹĺĻļĽľḶḷḸḹḺḻḼḽĿŀŁł',
        'm' => 'ḾḿṀṁṂṃ',
        'n' => 'ÑñŃńŅņŇňǸǹṄṅṆṇṈṉṊṋ',
        'o' => 'ÒÓÔÕÖòóôõöŌōŎŏŐőƠơǑǒǪǫǬǭȌȍȎȏȪȫȬȭȮȯȰȱṌṍṎṏṐṑṒṓỌọỎỏỐốỒồỔổỖỗỘộỚớỜờỞởỠỡỢợØøǾǿ',
        'p' => 'ṔṕṖṗ',
        'r' => 'ŔŕŖŗŘřȐȑȒȓṘṙṚṛṜṝṞṟ',
        's' => 'ŚśŜŝŞşŠšȘșṠṡṢṣṤṥṦṧṨṩſẛ',
        't' => 'ŢţŤťȚțṪṫṬṭṮṯṰṱẗ',
        'u' => 'ÙÚÛÜùúûüŨũŪūŬŭŮůŰűŲųƯưǓǔǕǖǗǘǙǚǛǜȔȕȖȗṲṳṴṵṶṷṸṹṺṻỤụỦủỨứỪừỬửỮữỰự',
        'v' => 'ṼṽṾṿ',
        'w' => 'ŴŵẀẁẂẃẄẅẆẇẈẉẘ',
        'x' => 'ẊẋẌẍ',
        'y' => 'ÝýÿŶŷŸȲȳẎẏẙỲỳỴỵỶỷỸỹ',
        'z' => 'ŹźŻżŽžẐẑẒẓẔẕ',
    ];

    /** @var array<string, string>|null accented character => its base letter */
    private static ?array $base = null;

    /** The pattern (backslash escapes) as an anchored regular expression meaning the same. */
    public static function toRegex(string $pattern): string
    {
        $chars = preg_split('//u', $pattern, -1, PREG_SPLIT_NO_EMPTY);
        if ($chars === false) {
            $chars = str_split($pattern);
        }
        $tokens = [];
        for ($i = 0, $n = count($chars); $i < $n; $i++) {
            $ch = $chars[$i];
            if ($ch === '\\' && $i + 1 < $n) {
                $tokens[] = self::literal($chars[++$i]);
            } elseif ($ch === '%') {
                $tokens[] = '.*';
            } elseif ($ch === '_') {
                $tokens[] = '.';
            } else {
                $tokens[] = self::literal($ch);
            }
        }
        $start = '^';
        $end = '$';
        while ($tokens !== [] && $tokens[0] === '.*') {
            array_shift($tokens);
            $start = '';
        }
        while ($tokens !== [] && end($tokens) === '.*') {
            array_pop($tokens);
            $end = '';
        }
        return $start . implode('', $tokens) . $end;
    }

    /** One pattern character: a letter with its accented forms, anything else escaped. */
    private static function literal(string $ch): string
    {
        if (self::$base === null) {
            self::$base = [];
            foreach (self::ACCENTED as $letter => $forms) {
                foreach (preg_split('//u', $forms, -1, PREG_SPLIT_NO_EMPTY) as $form) {
                    self::$base[$form] = $letter;
                }
            }
        }
        $letter = strlen($ch) === 1 ? strtolower($ch) : (self::$base[$ch] ?? null);
        if ($letter !== null && isset(self::ACCENTED[$letter])) {
            return '[' . $letter . self::ACCENTED[$letter] . ']';
        }
        return strpbrk($ch, '\\^$.|?*+()[]{}') !== false ? '\\' . $ch : $ch;
    }
}
